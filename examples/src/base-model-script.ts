import type { ScriptRequest } from '@contextkit/testkit'

/**
 * A scripted model for testkit's `/v1/completions`, for the base-model example. A ChatML prompt
 * (an instruct model): the first call asks `count_words` for the quoted text of the question in
 * Qwen's `<tool_call>` JSON, the next one answers from the `<tool_response>`. A transcript prompt
 * (a base model): it continues as the speaker the prompt ends with, then runs on into another
 * speaker's line, as base models do; the formatter's stop sequences cut that off.
 */
export const baseModelScript = (req: ScriptRequest): string => {
  const prompt = req.lastUserText
  if (prompt.includes('<|im_start|>')) {
    const response =
      /<tool_response>\n([\s\S]*?)\n<\/tool_response>(?![\s\S]*<\|im_start\|>user\n(?!<tool_response>))/.exec(
        prompt,
      )
    if (response) return `The text has ${response[1]?.trim()} words.<|im_end|>`
    const lastUser = prompt.slice(prompt.lastIndexOf('<|im_start|>user'))
    const quoted = /"([^"]+)"/.exec(lastUser)?.[1] ?? lastUser
    return `<tool_call>\n${JSON.stringify({ name: 'count_words', arguments: { text: quoted } })}\n</tool_call><|im_end|>`
  }
  return ' I will bring the tea and the cups.\nBob: great, see you there<|eot|>'
}
