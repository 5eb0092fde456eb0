/**
 * What the cache model costs per request: step 10 of a tool loop over a 20,000-token system
 * prompt (80 KB) and a history of 9 tool calls with 2 KB results, with and without the model.
 */
import Anthropic from '@anthropic-ai/sdk'
import { afterAll, beforeAll, bench, describe } from 'vitest'
import { PromptCache } from '../src/cache-model.js'
import { type AnthropicEmulator, startAnthropicEmulator } from '../src/index.js'
import { mergeTurns, parseMessagesRequest } from '../src/parse-request.js'
import { requestTokens } from '../src/token-rule.js'

const system = [
  {
    type: 'text' as const,
    text: 'S'.repeat(80_000),
    cache_control: { type: 'ephemeral' as const },
  },
]
const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'Start the task.' }]
for (let i = 0; i < 9; i++) {
  const id = `toolu_${i}`
  messages.push({
    role: 'assistant',
    content: [{ type: 'tool_use', id, name: 'read', input: { path: `file-${i}.txt` } }],
  })
  messages.push({
    role: 'user',
    content: [
      {
        type: 'tool_result',
        tool_use_id: id,
        content: 'r'.repeat(2_000),
        ...(i === 8 ? { cache_control: { type: 'ephemeral' as const } } : {}),
      },
    ],
  })
}
const body = { model: 'claude-sonnet-4-6', max_tokens: 1000, system, messages }
const parsed = parseMessagesRequest(body, true)
if (!parsed.ok) throw new Error(parsed.message)
const request = parsed.request
const merged = mergeTurns(request.messages)

let on: AnthropicEmulator
let off: AnthropicEmulator
let onClient: Anthropic
let offClient: Anthropic
beforeAll(async () => {
  on = await startAnthropicEmulator({ script: () => 'ok' })
  off = await startAnthropicEmulator({ script: () => 'ok', cache: false })
  onClient = new Anthropic({ apiKey: 'k', baseURL: on.url, maxRetries: 0 })
  offClient = new Anthropic({ apiKey: 'k', baseURL: off.url, maxRetries: 0 })
})
afterAll(async () => {
  await on.close()
  await off.close()
})

describe('cache accounting of one 25,000-token request (20 blocks)', () => {
  const cache = new PromptCache()
  bench('PromptCache.account (hash every block, look up, write)', () => {
    cache.account(request, merged, 'k', 'req')
  })
  bench('requestTokens only (what the emulator does with the model off)', () => {
    requestTokens(request, merged)
  })
})

describe('the same request through the real SDK', () => {
  bench('messages.create, cache model on', async () => {
    await onClient.messages.create(body)
  })
  bench('messages.create, cache: false', async () => {
    await offClient.messages.create(body)
  })
})
