import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { EmulatorConfigError } from './errors.js'
import { modelPage, resolveModels } from './models.js'
import { mergeTurns, parseMessagesRequest } from './parse-request.js'

describe('parseMessagesRequest', () => {
  test('never throws, whatever the body', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.anything(),
          fc.record(
            {
              model: fc.anything(),
              max_tokens: fc.anything(),
              messages: fc.anything(),
              system: fc.anything(),
              tools: fc.anything(),
              stop_sequences: fc.anything(),
            },
            { requiredKeys: [] },
          ),
        ),
        (body) => {
          const r = parseMessagesRequest(body, true)
          if (!r.ok) expect(r.message.length).toBeGreaterThan(0)
        },
      ),
    )
  })

  test('string content becomes a text block; count_tokens needs no max_tokens', () => {
    const r = parseMessagesRequest(
      { model: 'm', system: 'sys', messages: [{ role: 'user', content: 'hi' }] },
      false,
    )
    expect(r.ok && r.request.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
    ])
    expect(r.ok && r.request.system).toEqual([{ type: 'text', text: 'sys' }])
    expect(
      parseMessagesRequest({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }, true),
    ).toEqual({ ok: false, message: 'max_tokens: Field required' })
  })
})

describe('mergeTurns', () => {
  test('no two neighbours share a role and no block is lost or reordered', () => {
    const arb = fc.array(
      fc.record({
        role: fc.constantFrom('user' as const, 'assistant' as const),
        content: fc.array(fc.record({ type: fc.constant('text'), text: fc.string() }), {
          maxLength: 3,
        }),
      }),
      { maxLength: 12 },
    )
    fc.assert(
      fc.property(arb, (messages) => {
        const merged = mergeTurns(messages)
        for (let i = 1; i < merged.length; i++)
          expect(merged[i]!.role).not.toBe(merged[i - 1]!.role)
        expect(merged.flatMap((m) => m.content)).toEqual(messages.flatMap((m) => m.content))
      }),
    )
  })
})

describe('models', () => {
  test('paging forward with after_id visits every model exactly once, for any limit', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 30 }), fc.integer({ min: 1, max: 12 }), (n, limit) => {
        const models = [
          ...resolveModels(Array.from({ length: n }, (_, i) => ({ id: `m${i}` }))).values(),
        ]
        const seen: string[] = []
        let after: string | null = null
        for (let guard = 0; guard < 100; guard++) {
          const q = new URLSearchParams({
            limit: String(limit),
            ...(after ? { after_id: after } : {}),
          })
          const page = modelPage(models, q) as {
            data: { id: string }[]
            has_more: boolean
            last_id: string | null
          }
          seen.push(...page.data.map((d) => d.id))
          if (!page.has_more) break
          after = page.last_id
        }
        expect(seen).toEqual(models.map((m) => m.id))
      }),
    )
  })

  test('bad model lists are EmulatorConfigError', () => {
    expect(() => resolveModels([{ id: 'a' }, { id: 'a' }])).toThrow(EmulatorConfigError)
    expect(() => resolveModels([{ id: '' }])).toThrow(EmulatorConfigError)
    expect(() => resolveModels([{ id: 'x', maxTokens: 0 }])).toThrow(EmulatorConfigError)
  })
})
