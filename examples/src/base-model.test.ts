import { type AnthropicEmulator, startAnthropicEmulator } from '@contextkit/testkit'
import { afterEach, expect, test } from 'vitest'
import { main } from './base-model.js'
import { baseModelScript } from './base-model-script.js'

let server: AnthropicEmulator | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

async function start() {
  server = await startAnthropicEmulator({ script: baseModelScript })
  return {
    baseURL: `${server.url}/v1`,
    bodies: () => server!.requests.map((r) => r.body as Record<string, unknown>),
  }
}

test('ChatML through /v1/completions: the chat template, a Qwen tool call, the answer from its result', async () => {
  const { baseURL, bodies } = await start()
  const result = await main({ baseURL })
  expect(result.toolCalls).toEqual([
    { name: 'count_words', input: { text: 'the quick brown fox jumps over the lazy dog' } },
  ])
  expect(result.text).toBe('The text has 9 words.')
  expect(result.result.steps).toBe(2)
  expect(result.prompts[0]).toMatch(
    /^<\|im_start\|>system\nYou are a concise assistant\.[\s\S]*<tools>\n\{"type":"function","function":\{"name":"count_words"/,
  )
  expect(result.prompts[0]?.endsWith('<|im_start|>assistant\n')).toBe(true)
  expect(result.prompts[1]).toContain('<tool_response>\n9\n</tool_response>')
  expect(result.stopSequences).toEqual(['<|im_end|>', '<|endoftext|>'])
  const sent = bodies()
  expect(sent.map((b) => [b.model, b.stream])).toEqual([
    ['qwen2.5-7b-instruct', true],
    ['qwen2.5-7b-instruct', true],
  ])
  expect(sent[0]?.stop).toEqual(['<|im_end|>', '<|endoftext|>'])
})

test('a base model continues the transcript and is stopped before it speaks for someone else', async () => {
  const { baseURL, bodies } = await start()
  const result = await main({ baseURL, format: 'completions', model: 'llama-3-8b' })
  expect(result.prompts[0]).toBe(
    'Ada: Who brings what on Saturday?<|eot|>\n\nBob: I have the cake.<|eot|>\n\nAssistant:',
  )
  expect(result.stopSequences).toEqual(expect.arrayContaining(['\nAda:', '\nBob:', '<|eot|>']))
  expect(result.text).toBe(' I will bring the tea and the cups.') // verbatim, after "Assistant:"
  // the server applied the `stop` it was sent (finish_reason "stop"), as llama.cpp and vLLM do
  expect(result.result.stopReason).toBe('end_turn')
  expect(result.toolCalls).toEqual([])
  expect(bodies()[0]?.model).toBe('llama-3-8b')
  expect(bodies()[0]?.stop).toEqual(expect.arrayContaining(['\nBob:']))
})
