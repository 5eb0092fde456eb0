// The original design's shapes of runAgent's formatter option (issue 45, seed 004): a name for
// the XML transcript, `null` for native mode; and its `systemPrompt` refused naming ours.
import { textMessage, ValidationError } from '@contextkit/core'
import { describe, expect, test } from 'vitest'
import { emulated, wireText } from '../test-support.js'
import { scriptedProvider } from '../testing/scripted-provider.js'
import { runAgent } from './run-agent.js'

const ask = [textMessage('user', '2+2?')]

describe("runAgent's formatter shorthands, against the emulator", () => {
  test("'anthropic-xml' sends the prefilled XML transcript", async () => {
    const { bodies, provider } = await emulated(['four.'])
    const result = await runAgent({
      provider,
      model: 'claude-haiku-4-5',
      formatter: 'anthropic-xml',
      messages: ask,
    }).result
    expect(result.error).toBeUndefined()
    const sent = bodies()[0]?.messages ?? []
    expect(sent.at(-1)?.role).toBe('assistant')
    expect(wireText(sent.at(-1))).toBe('User: 2+2?\n\nAssistant:')
    expect(result.text).toBe('four.')
  })

  test.each([null, 'native' as const])(
    '%j sends plain messages (no prefill)',
    async (formatter) => {
      const { bodies, provider } = await emulated(['four.'])
      const result = await runAgent({
        provider,
        model: 'claude-haiku-4-5',
        formatter,
        messages: ask,
      }).result
      expect(result.error).toBeUndefined()
      const sent = bodies()[0]?.messages ?? []
      expect(sent.map((m) => m.role)).toEqual(['user'])
      expect(wireText(sent[0])).toBe('2+2?')
    },
  )

  test('another name is refused, typed', () => {
    expect(() =>
      runAgent({
        provider: scriptedProvider([]),
        model: 'claude-haiku-4-5',
        formatter: 'chatml' as never,
        messages: ask,
      }),
    ).toThrow(ValidationError)
  })
})

test("systemPrompt (the seed's name) is refused, naming ours", () => {
  let error: unknown
  try {
    runAgent({
      provider: scriptedProvider([]),
      model: 'claude-haiku-4-5',
      messages: ask,
      systemPrompt: 'Be brief.',
    } as never)
  } catch (e) {
    error = e
  }
  expect(ValidationError.isInstance(error)).toBe(true)
  expect((error as Error).message).toContain('`systemPrompt` is `system` here')
})
