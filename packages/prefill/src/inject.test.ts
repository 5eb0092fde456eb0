import { getModelInfo, type Message, textMessage, textOf } from '@contextkit/core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { PrefillRejectedError } from './errors.js'
import { applyPrefill, defaultInstruction, injectPrefill } from './inject.js'

const haiku = getModelInfo('claude-haiku-4-5') // accepts prefill
const sonnet46 = getModelInfo('claude-sonnet-4-6') // rejects prefill

const history: Message[] = [
  textMessage('user', 'What is 2+2?'),
  textMessage('assistant', 'Four.'),
  textMessage('user', 'And 3+3?'),
]

describe('injectPrefill', () => {
  it('appends an assistant message with the prefill on models that accept it', () => {
    const out = injectPrefill(history, 'Let me think.', haiku)
    expect(out).toHaveLength(4)
    expect(out.slice(0, 3)).toEqual(history)
    expect(out[3]).toEqual(textMessage('assistant', 'Let me think.'))
  })

  it('trims trailing whitespace (the API rejects it) and reports exactly what was sent', () => {
    const applied = applyPrefill(history, '  Answer:  \n\t', haiku)
    expect(applied.mode).toBe('native')
    expect(applied.sent).toBe('  Answer:')
    expect(textOf(applied.messages.at(-1)!)).toBe('  Answer:')
  })

  it('never sends a native prefill to a model whose thinking is always on', () => {
    const fable = getModelInfo('claude-fable-5-1')
    expect(fable.thinkingMode).toBe('adaptive-always')
    const applied = applyPrefill(history, 'Answer:', fable)
    expect(applied).toMatchObject({ mode: 'instruct', reason: 'thinking', sent: 'Answer:' })
    expect(applied.messages.at(-1)?.role).toBe('user')
    // even a hand-made model that claims prefill support
    const claimed = { id: 'x', supportsPrefill: true, thinkingMode: 'adaptive-always' as const }
    expect(applyPrefill(history, 'Answer:', claimed, { onUnsupported: 'skip' })).toEqual({
      messages: history,
      mode: 'skip',
      reason: 'thinking',
    })
    expect(() => applyPrefill(history, 'Answer:', claimed, { onUnsupported: 'error' })).toThrow(
      PrefillRejectedError,
    )
  })

  it('does nothing for a blank or missing prefill', () => {
    for (const p of [undefined, '', '  \n ']) {
      const applied = applyPrefill(history, p, haiku)
      expect(applied).toEqual({ messages: history, mode: 'none' })
    }
  })

  it('skips when the conversation is empty or already ends with an assistant message', () => {
    expect(applyPrefill([], 'x', haiku)).toEqual({
      messages: [],
      mode: 'skip',
      reason: 'no-messages',
    })
    const endsAssistant = history.slice(0, 2)
    expect(applyPrefill(endsAssistant, 'x', sonnet46)).toEqual({
      messages: endsAssistant,
      mode: 'skip',
      reason: 'ends-with-assistant',
    })
  })

  it("instructs by default on models that reject prefill (onUnsupported: 'instruct')", () => {
    const applied = applyPrefill(history, 'Let me think.', sonnet46)
    expect(applied.mode).toBe('instruct')
    expect(applied.reason).toBe('model')
    expect(applied.sent).toBe('Let me think.')
    expect(applied.messages).toHaveLength(3)
    expect(applied.messages.at(-1)?.role).toBe('user')
    const last = applied.messages.at(-1)!
    expect(last.content[0]).toEqual({ type: 'text', text: 'And 3+3?' })
    expect(last.content[1]).toEqual({
      type: 'text',
      text: `\n\n${defaultInstruction('Let me think.')}`,
    })
    // joined the way transcript formats join text blocks, the instruction stays apart
    expect(textOf(last)).toBe(`And 3+3?\n\n${defaultInstruction('Let me think.')}`)
    expect(defaultInstruction('Let me think.')).toContain('\nLet me think.\n')
  })

  it('keeps tool results in the last user turn and adds the instruction after them', () => {
    const withTool: Message[] = [
      textMessage('user', 'weather?'),
      {
        role: 'assistant',
        content: [{ type: 'tool_call', id: 't1', name: 'weather', input: { city: 'Paris' } }],
      },
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            toolCallId: 't1',
            content: [{ type: 'text', text: 'sunny' }],
            isError: false,
          },
        ],
      },
    ]
    const out = injectPrefill(withTool, 'Result:', sonnet46, {
      instruction: (p) => `START WITH ${p}`,
    })
    expect(out.at(-1)?.content).toEqual([
      withTool[2]!.content[0],
      { type: 'text', text: 'START WITH Result:' },
    ])
  })

  it("skips with onUnsupported: 'skip' and throws PrefillRejectedError with 'error'", () => {
    expect(applyPrefill(history, 'x', sonnet46, { onUnsupported: 'skip' })).toEqual({
      messages: history,
      mode: 'skip',
      reason: 'model',
    })
    let caught: unknown
    try {
      applyPrefill(history, 'x', sonnet46, { onUnsupported: 'error' })
    } catch (error) {
      caught = error
    }
    expect(PrefillRejectedError.isInstance(caught)).toBe(true)
    expect((caught as PrefillRejectedError).code).toBe('prefill_rejected')
    expect((caught as PrefillRejectedError).details).toEqual({
      model: 'claude-sonnet-4-6',
      by: 'capability',
    })
  })

  it('never sends a native prefill while extended thinking is on', () => {
    const applied = applyPrefill(history, 'Hmm.', haiku, { thinking: true })
    expect(applied.mode).toBe('instruct')
    expect(applied.reason).toBe('thinking')
    expect(applied.messages.at(-1)?.role).toBe('user')
    expect(() =>
      applyPrefill(history, 'Hmm.', haiku, { thinking: true, onUnsupported: 'error' }),
    ).toThrow(PrefillRejectedError)
  })

  it('never mutates its input and never leaves trailing whitespace in a native prefill', () => {
    const messageArb = fc.record({
      role: fc.constantFrom('user' as const, 'assistant' as const),
      content: fc.array(fc.record({ type: fc.constant('text' as const), text: fc.string() }), {
        maxLength: 3,
      }),
    })
    fc.assert(
      fc.property(
        fc.array(messageArb, { maxLength: 5 }),
        fc.string(),
        fc.boolean(),
        fc.constantFrom('instruct' as const, 'skip' as const),
        (messages, prefill, supports, onUnsupported) => {
          const before = structuredClone(messages)
          const model = { id: 'm', supportsPrefill: supports }
          const applied = applyPrefill(messages, prefill, model, { onUnsupported })
          expect(messages).toEqual(before)
          if (applied.mode === 'native') {
            const text = textOf(applied.messages.at(-1)!)
            expect(text).toBe(applied.sent)
            expect(text).toBe(text.trimEnd())
            expect(text.trim()).not.toBe('')
            expect(applied.messages.slice(0, -1)).toEqual(messages)
          } else {
            expect(applied.messages).toHaveLength(messages.length)
            if (applied.mode !== 'instruct') expect(applied.messages).toEqual(messages)
          }
        },
      ),
    )
  })
})
