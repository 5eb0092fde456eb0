import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ValidationError } from '@contextkit/core'
import { MessageSchema } from '@contextkit/core/schemas'
import fc from 'fast-check'
import { afterAll, describe, expect, test } from 'vitest'
import { onlyTypedErrors } from '../../../test-utils/typed-errors.js'
import {
  addAnchor,
  buildResumptionMessage,
  buildResumptionSection,
  captureStreamTail,
  emptySelfState,
  markInjected,
  migrateSelfState,
  recordStreamTail,
  resumptionContextFrom,
  SelfStateSchema,
  stripInjected,
} from './index.js'
import { loadSelfState, resumption, saveSelfState, updateSelfState } from './node.js'

const dir = mkdtempSync(join(tmpdir(), 'resumption-guards-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const state = emptySelfState('s')
/**
 * Anything at all, or a value of the right shape (words, a state, small option objects), so the
 * returned-value checks below run often, not only the throw path.
 */
const words = fc.string({ unit: fc.constantFrom('a', 'b', ' ', '\n', 'é', '\u2063', '\u2064') })
const anything = fc.oneof(
  fc.anything({ withBigInt: true, withMap: true, withSet: true, withTypedArray: true }),
  words,
  fc.array(words, { maxLength: 3 }),
  fc.constant(state),
  fc.record({ raw: words }),
  fc.record(
    {
      tokens: fc.integer({ min: -5, max: 50 }),
      sessionKey: fc.constantFrom('s', 'k'),
      max: fc.nat(6),
    },
    { requiredKeys: [] },
  ),
)
const isValidState = (value: unknown) =>
  expect(SelfStateSchema.safeParse(value).success, JSON.stringify(value)).toBe(true)

describe('wrong argument types (regressions: TypeError from deep inside)', () => {
  test('throw a ValidationError naming the parameter', async () => {
    expect(() => addAnchor({} as never, { raw: 'x' })).toThrow(
      'addAnchor: state must be a SelfState',
    )
    expect(() => addAnchor(state, null as never)).toThrow(ValidationError)
    expect(() => addAnchor(state, { raw: 'x', triggerType: 3 as never })).toThrow(
      'addAnchor: anchor.triggerType must be a string',
    )
    expect(() => addAnchor(state, { raw: 'x' }, null as never)).toThrow(ValidationError)
    expect(() => captureStreamTail('x', null as never)).toThrow(ValidationError)
    expect(() => recordStreamTail(state, 5 as never, { sessionKey: 's' })).toThrow(ValidationError)
    expect(() => recordStreamTail(state, 'x', undefined as never)).toThrow(
      'recordStreamTail: options.sessionKey must be a string',
    )
    expect(() => stripInjected(['x'] as never)).toThrow('stripInjected: text must be a string')
    expect(() => stripInjected('x', 'y' as never)).toThrow(ValidationError)
    expect(() => markInjected(1 as never)).toThrow(ValidationError)
    expect(() => emptySelfState(undefined as never)).toThrow(ValidationError)
    expect(() => resumptionContextFrom({} as never)).toThrow(ValidationError)
    expect(() => resumptionContextFrom(state, null as never)).toThrow(ValidationError)
    expect(() => buildResumptionSection({} as never)).toThrow(ValidationError)
    expect(() => buildResumptionMessage({ anchors: [null] } as never)).toThrow(ValidationError)
    expect(() => resumption(null as never)).toThrow(ValidationError)
    // the factory checks its options with zod: each bad value is named in the error
    for (const [bad, path] of [
      [{ budgetTokens: -1 }, 'budgetTokens'],
      [{ placement: 'sideways' }, 'placement'],
      [{ store: {} }, 'store'],
      [{ agentId: '../x' }, 'agentId'],
      [{ cwd: 42 }, 'cwd'],
      [{ priority: Number.NaN }, 'priority'],
      [{ lockTimeoutMs: 'soon' }, 'lockTimeoutMs'],
    ] as const) {
      const error = (() => {
        try {
          resumption(bad as never)
        } catch (e) {
          return e
        }
      })()
      expect(ValidationError.isInstance(error)).toBe(true)
      expect((error as ValidationError).issues.map((i) => i.path)).toContain(path)
    }
    expect(() => resumption({ budgetTokens: 0, cwd: () => '/w', branch: 'main' })).not.toThrow()
    await expect(loadSelfState(join(dir, 'x.json'), null as never)).rejects.toThrow(ValidationError)
    await expect(loadSelfState(42 as never)).rejects.toThrow('loadSelfState: path must be a string')
    await expect(updateSelfState(join(dir, 'x.json'), 'no' as never)).rejects.toThrow(
      ValidationError,
    )
  })

  test('property: public functions given anything throw a typed error or return a well-formed value', async () => {
    const path = join(dir, 'fuzz.json')
    let returned = 0
    const typed = <T>(f: () => T | Promise<T>, check: (value: Awaited<T>) => void) =>
      onlyTypedErrors(f, (value) => {
        returned++
        check(value)
      })
    const tailOf = (text: unknown) => (tail: string) => {
      expect(typeof tail).toBe('string')
      // a verbatim suffix of the text, trimmed ('' for anything but text)
      if (typeof text !== 'string') expect(tail).toBe('')
      else expect(text.trimEnd().endsWith(tail)).toBe(true)
      expect(tail).toBe(tail.trim())
    }
    await fc.assert(
      fc.asyncProperty(anything, anything, anything, async (a, b, c) => {
        await typed(() => captureStreamTail(a as never, b as never), tailOf(a))
        await typed(() => addAnchor(a as never, b as never, c as never), isValidState)
        await typed(
          () => addAnchor(state, a as never, b as never),
          (next) => {
            isValidState(next)
            expect(next.verbatimAnchors.length).toBeLessThanOrEqual(
              state.verbatimAnchors.length + 1,
            )
          },
        )
        await typed(() => recordStreamTail(a as never, b as never, c as never), isValidState)
        await typed(
          () => recordStreamTail(state, 'some words here', a as never),
          (next) => {
            isValidState(next)
            if (next.streamTail) expect('some words here'.endsWith(next.streamTail.raw)).toBe(true)
          },
        )
        await typed(
          () => markInjected(a as never),
          // marked text is exactly what stripInjected removes, whatever it holds (regression:
          // a text holding a closing marker ended its block early and its tail survived)
          (marked) => expect(stripInjected(marked)).toBe(''),
        )
        await typed(
          () => stripInjected(a as never, b as never, c as never),
          (out) => {
            expect(typeof out).toBe('string')
            expect(out.length).toBeLessThanOrEqual((a as string).length)
          },
        )
        await typed(
          () => stripInjected('x y', a as never, b as never),
          (out) => {
            expect(['x y', 'x', 'y', '', ' ', 'x ', ' y']).toContain(out)
          },
        )
        await typed(() => migrateSelfState(a), isValidState)
        await typed(
          () => emptySelfState(a as never, b as never),
          (fresh) => {
            isValidState(fresh)
            expect(fresh.sessionId).toBe(a)
            expect(fresh.verbatimAnchors).toEqual([])
          },
        )
        const resolved = (out: { context: unknown; tailDropped?: unknown }) => {
          expect(out.context === null || typeof out.context === 'object').toBe(true)
          if (out.tailDropped !== undefined) expect(typeof out.tailDropped).toBe('string')
        }
        await typed(() => resumptionContextFrom(a as never, b as never), resolved)
        await typed(
          () => resumptionContextFrom(state, a as never),
          (out) => {
            resolved(out)
            // an empty state has nothing to inject
            expect(out.context).toBeNull()
          },
        )
        await typed(
          () => buildResumptionSection(a as never, b as never),
          (text) => {
            expect(typeof text).toBe('string')
          },
        )
        await typed(
          () => buildResumptionMessage(a as never, b as never),
          (message) => {
            if (message !== null) expect(MessageSchema.safeParse(message).success).toBe(true)
          },
        )
        await typed(
          () => resumption(a as never),
          (mw) => expect(mw.name).toBe('resumption'),
        )
        await typed(
          () => loadSelfState(path, a as never),
          (loaded) => {
            expect(['file', 'backup', 'none']).toContain(loaded.source)
            if (loaded.state !== null) isValidState(loaded.state)
          },
        )
        await typed(
          () => saveSelfState(path, a as never, b as never),
          (saved) => {
            isValidState(saved)
            expect(saved.revision).toBeGreaterThan(0)
          },
        )
      }),
      { numRuns: 300 },
    )
    expect(returned).toBeGreaterThan(300)
  }, 60_000)
})
