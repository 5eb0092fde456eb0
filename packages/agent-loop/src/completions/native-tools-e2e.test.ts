import { getModelInfo, textMessage } from '@contextkit/core'
import { ChatMLFormatter } from '@contextkit/formatters'
import { startAnthropicEmulator } from '@contextkit/testkit'
import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import { runAgent } from '../run/run-agent.js'
import { collect, onCleanup } from '../test-support.js'
import { defineTool } from '../tools/define-tool.js'
import { openAICompatibleCompletionsProvider } from './completions-provider.js'

let runs = 0
const add = defineTool({
  name: 'add',
  description: 'Add two numbers',
  input: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => {
    runs++
    return a + b
  },
})

const CASES = [
  {
    preset: 'llama3' as const,
    call: '{"name": "add", "parameters": {"a": 2, "b": 3}}<|eot_id|>',
    answer: 'It is 5.<|eot_id|>',
    sawResult: '<|start_header_id|>ipython<|end_header_id|>\n\n"5"<|eot_id|>',
  },
  {
    preset: 'mistral' as const,
    call: '[TOOL_CALLS] [{"name": "add", "arguments": {"a": 2, "b": 3}}]</s>',
    answer: 'It is 5.</s>',
    sawResult: '[TOOL_RESULTS] {"content": 5, "call_id": "',
  },
  {
    preset: 'chatml' as const,
    call: '<tool_call>\n{"name": "add", "arguments": {"a": 2, "b": 3}}\n</tool_call><|im_end|>',
    answer: 'It is 5.<|im_end|>',
    sawResult: '<|im_start|>user\n<tool_response>\n5\n</tool_response><|im_end|>',
  },
]

describe("a local model in its own tool format, through /v1/completions (toolFormat: 'native')", () => {
  for (const c of CASES) {
    test(`${c.preset}: the call is parsed, the tool runs, its result goes back in the family's format`, async () => {
      runs = 0
      const prompts: string[] = []
      const server = await startAnthropicEmulator({
        script: (req) => {
          prompts.push(req.lastUserText)
          return prompts.length === 1 ? c.call : c.answer
        },
      })
      onCleanup(() => server.close())
      const run = runAgent({
        provider: openAICompatibleCompletionsProvider({ baseURL: `${server.url}/v1` }),
        model: getModelInfo('local-model'),
        formatter: new ChatMLFormatter({ preset: c.preset, toolFormat: 'native' }),
        messages: [textMessage('user', 'What is 2 + 3?')],
        tools: [add],
      })
      await collect(run.events)
      const result = await run.result
      expect(result.error).toBeUndefined()
      expect(result.stopReason).toBe('end_turn')
      expect(result.text).toBe('It is 5.')
      expect(runs).toBe(1)
      expect(prompts[1]).toContain(c.sawResult)
    })
  }
})
