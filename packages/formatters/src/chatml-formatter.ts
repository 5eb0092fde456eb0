import {
  ConfigurationError,
  type Message,
  MessageSchema,
  parseWith,
  type ToolCallBlock,
  type ToolDefinition,
  type ToolResultBlock,
} from '@contextkit/core'
import { type ChatMLParserOptions, ChatMLStreamParser } from './chatml-parser.js'
import { stringifyJson } from './lossless-json.js'
import { checkMediaPolicy, type UnsupportedMediaPolicy, unsupported } from './media.js'
import { checkParticipantName, mergeStops } from './participants.js'
import { guardSpecialTokens, type SpecialTokenPolicy } from './special-tokens.js'
import { systemText } from './system-prompt.js'
import type {
  BuildOptions,
  FormattedRequest,
  FormatWarning,
  ParserOptions,
  PrefillFormatter,
  StreamParser,
} from './types.js'
import { withUserSections } from './user-sections.js'
import { parseBuildOptions, parseToolResults } from './validate.js'

/** Options of {@link ChatMLFormatter}. */
export interface ChatMLFormatterOptions {
  /** Text containing a special token: `'reject'` throws `SpecialTokenError`, `'escape'` breaks it with U+200B. Default `'reject'`. */
  specialTokens?: SpecialTokenPolicy
  /** Special tokens guarded besides `<|im_start|>`, `<|im_end|>`, `<|endoftext|>`. Default `[]`. */
  extraSpecialTokens?: readonly string[]
  /** Images (ChatML text has no place for them): `'error'` throws, `'strip'` drops with a warning. Default `'error'`. */
  unsupportedMedia?: UnsupportedMediaPolicy
}

/** The ChatML special tokens always guarded. */
export const CHATML_SPECIAL_TOKENS: readonly string[] = [
  '<|im_start|>',
  '<|im_end|>',
  '<|endoftext|>',
]

/** A JSON object as one line with `<` written `\u003c`, so it can never close a tag. */
function safeJson(value: unknown): string {
  return stringifyJson(value).replaceAll('<', '\\u003c')
}

/** Render one call in the Qwen convention. */
export function renderQwenToolCall(call: Pick<ToolCallBlock, 'name' | 'input'>): string {
  return `<tool_call>\n${safeJson({ name: call.name, arguments: call.input })}\n</tool_call>`
}

/**
 * ChatML (`<|im_start|>{role}\n{content}<|im_end|>\n`) with the Qwen tool and thinking
 * conventions, rendered to one prompt string for a completions endpoint.
 */
export class ChatMLFormatter implements PrefillFormatter {
  readonly name = 'chatml'
  readonly usesPrefill = true
  readonly #policy: SpecialTokenPolicy
  readonly #tokens: readonly string[]
  readonly #media: UnsupportedMediaPolicy

  constructor(options: ChatMLFormatterOptions = {}) {
    this.#policy = options.specialTokens ?? 'reject'
    this.#media = options.unsupportedMedia ?? 'error'
    this.#tokens = [...CHATML_SPECIAL_TOKENS, ...(options.extraSpecialTokens ?? [])]
    if (this.#policy !== 'reject' && this.#policy !== 'escape')
      throw new ConfigurationError(`specialTokens must be 'reject' or 'escape'`)
    checkMediaPolicy(this.#media)
  }

  formatToolDefinitions(tools: readonly ToolDefinition[]): string | undefined {
    if (tools.length === 0) return undefined
    const lines = tools.map((t) =>
      safeJson({
        type: 'function',
        function: { name: t.name, description: t.description, parameters: t.inputSchema },
      }),
    )
    return `# Tools\n\nYou may call one or more of these functions:\n<tools>\n${lines.join('\n')}\n</tools>\n\nFor each call, write a JSON object with the function name and arguments inside <tool_call></tool_call> tags:\n<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>`
  }

  /**
   * Results as `<tool_response>` blocks (an error result's text starts with `Error: `). Special
   * tokens in the text follow `specialTokens`; images follow `unsupportedMedia` (`'strip'`
   * writes `[image omitted]`).
   */
  formatToolResults(results: readonly ToolResultBlock[]): string {
    return this.#toolResults(parseToolResults(results), -1, [])
  }

  #toolResults(
    results: readonly ToolResultBlock[],
    index: number,
    warnings: FormatWarning[],
  ): string {
    const where = index < 0 ? 'tool results' : `message ${index}`
    return results
      .map((r) => {
        const text = r.content
          .map((c) => {
            if (c.type === 'text') return c.text
            unsupported(this.#media, c, this.name, index, warnings)
            return '[image omitted]'
          })
          .join('\n')
        const body = guardSpecialTokens(text, this.#tokens, this.#policy, where)
        return `<tool_response>\n${r.isError ? `Error: ${body}` : body}\n</tool_response>`
      })
      .join('\n')
  }

  createStreamParser(options: ChatMLParserOptions = {}): StreamParser {
    return new ChatMLStreamParser(options)
  }

  parseToolCalls(text: string, options: ParserOptions = {}): ToolCallBlock[] {
    const parser = new ChatMLStreamParser(options)
    const calls: ToolCallBlock[] = []
    for (const e of [...parser.processChunk(text), ...parser.flush()]) {
      if (e.type === 'tool-call-end') calls.push(e.call)
    }
    return calls
  }

  hasToolUse(text: string, options: ParserOptions = {}): boolean {
    return this.parseToolCalls(text, options).length > 0
  }

  buildMessages(input: readonly Message[], buildOptions?: BuildOptions): FormattedRequest {
    const options = parseBuildOptions(buildOptions)
    const messages = withUserSections(
      parseWith(MessageSchema.array(), input, 'messages'),
      options.userSections,
    )
    const warnings: FormatWarning[] = []
    const guard = (text: string, where: string): string =>
      guardSpecialTokens(text, this.#tokens, this.#policy, where)
    const sys = systemText(options.system, this.formatToolDefinitions(options.tools ?? []))
    let prompt = sys ? `<|im_start|>system\n${guard(sys, 'system')}<|im_end|>\n` : ''
    const last = messages[messages.length - 1]
    // a final assistant message is continued (an empty one is the open turn itself)
    const continues = last?.role === 'assistant'
    let turn = ''
    messages.forEach((message, index) => {
      const where = `message ${index}`
      const pieces: Array<{ text: string; kind: 'text' | 'tag' }> = []
      for (const block of message.content) {
        switch (block.type) {
          case 'text':
            if (block.text !== '') pieces.push({ text: guard(block.text, where), kind: 'text' })
            break
          case 'thinking':
            pieces.push({ text: `<think>\n${guard(block.thinking, where)}\n</think>`, kind: 'tag' })
            break
          case 'tool_call':
            pieces.push({ text: guard(renderQwenToolCall(block), where), kind: 'tag' })
            break
          case 'tool_result':
            pieces.push({ text: this.#toolResults([block], index, warnings), kind: 'tag' })
            break
          case 'image':
            unsupported(this.#media, block, this.name, index, warnings)
            break
        }
      }
      let content = ''
      pieces.forEach((p, i) => {
        const prev = pieces[i - 1]
        content += prev === undefined || (prev.kind === 'text' && p.kind === 'text') ? '' : '\n'
        content += p.text
      })
      if (message.role === 'user' && message.participant !== undefined) {
        const name = checkParticipantName(message.participant, `${where} participant`)
        content = `${guard(name, `${where} participant`)}: ${content}`
      }
      const open = `<|im_start|>${message.role}\n`
      if (continues && index === messages.length - 1) {
        prompt += open
        turn = content.trim() === '' ? '' : content
      } else {
        prompt += `${open}${content}<|im_end|>\n`
      }
    })
    let tail = ''
    if (!continues) prompt += '<|im_start|>assistant\n'
    if (options.thinking && turn === '') tail += '<think>\n'
    tail += guard((options.prefill ?? '').trimEnd(), 'prefill')
    // a continued message never ends in whitespace, unless the prefill or <think> writes it
    turn = tail === '' ? turn.trimEnd() : turn + tail
    prompt += turn
    const request: FormattedRequest = {
      messages: [],
      system: [],
      prompt,
      stopSequences: mergeStops(['<|im_end|>', '<|endoftext|>'], options.stopSequences),
      cacheMarkersApplied: 0,
      warnings,
    }
    if (turn !== '') request.assistantPrefill = turn
    return request
  }
}
