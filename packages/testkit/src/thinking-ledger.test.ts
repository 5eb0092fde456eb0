import Anthropic from '@anthropic-ai/sdk'
import { afterEach, describe, expect, test } from 'vitest'
import { type AnthropicEmulator, startAnthropicEmulator } from './index.js'

let emu: AnthropicEmulator | undefined
afterEach(async () => {
  await emu?.close()
})

const THINKING = { type: 'enabled', budget_tokens: 1024 } as const

async function firstTurn() {
  emu = await startAnthropicEmulator({
    script: () => ({
      content: [
        { type: 'redacted_thinking', data: 'opaque-bytes' },
        { type: 'thinking', thinking: 'Check the tool.' },
        { type: 'tool_use', id: 'toolu_1', name: 't', input: {} },
      ],
    }),
  })
  const client = new Anthropic({ baseURL: emu.url, apiKey: 'k', maxRetries: 0 })
  const tools = [{ name: 't', input_schema: { type: 'object' as const } }]
  const reply = await client.messages.create({
    model: 'claude-haiku-4-5',
    max_tokens: 2000,
    thinking: THINKING,
    tools,
    messages: [{ role: 'user', content: 'go' }],
  })
  const next = (assistant: Anthropic.Messages.ContentBlockParam[]) =>
    client.messages.create({
      model: 'claude-haiku-4-5',
      max_tokens: 2000,
      thinking: THINKING,
      tools,
      messages: [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: assistant },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'ok' }] },
      ],
    })
  return { reply, next }
}

describe('a tool-use continuation must send back its thinking unchanged', () => {
  test('unchanged is accepted', async () => {
    const { reply, next } = await firstTurn()
    await expect(
      next(reply.content as Anthropic.Messages.ContentBlockParam[]),
    ).resolves.toBeTruthy()
  })

  test('dropped thinking is a 400, as the API answers', async () => {
    const { reply, next } = await firstTurn()
    const onlyCall = reply.content.filter(
      (b) => b.type === 'tool_use',
    ) as Anthropic.Messages.ContentBlockParam[]
    await expect(next(onlyCall)).rejects.toMatchObject({ status: 400 })
  })

  test('a dropped redacted block or an altered signature is a 400', async () => {
    const { reply, next } = await firstTurn()
    const blocks = reply.content as Anthropic.Messages.ContentBlockParam[]
    await expect(next(blocks.slice(1))).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining('Invalid `signature`'),
    })
    const altered = blocks.map((b) => (b.type === 'thinking' ? { ...b, signature: 'forged' } : b))
    await expect(next(altered)).rejects.toMatchObject({ status: 400 })
  })
})
