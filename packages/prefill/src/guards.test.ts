import {
  getModelInfo,
  isContentBlockArray,
  isMessageArray,
  ValidationError,
} from '@contextkit/core'
import { MessageSchema } from '@contextkit/core/schemas'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { onlyTypedErrors } from '../../../test-utils/typed-errors.js'
import { PrefillConfigSchema } from './config.js'
import {
  applyPrefill,
  ensurePrefillInContent,
  injectPrefill,
  isPrefillRejection,
  matchPrefill,
  stripPrefillFromContent,
  stripPrefillFromMessage,
  stripPrefillFromResponse,
} from './index.js'
import {
  loadPrefill,
  modelFamily,
  parsePrefillConfig,
  prefill,
  prefillCandidates,
  readPrefillContent,
} from './node.js'

/**
 * Anything at all, or a value of the right shape (a prompt-ish string, a message list, content
 * blocks, a model), so the returned-value checks below run often, not only the throw path.
 */
const text = fc.string({ unit: fc.constantFrom('a', 'B', ' ', '\n', '\t', 'é', '<') })
const blocks = fc.array(
  fc.oneof(
    text.map((t) => ({ type: 'text' as const, text: t })),
    text.map((t) => ({ type: 'thinking' as const, thinking: t })),
  ),
  { maxLength: 3 },
)
const anything = fc.oneof(
  fc.anything({ withBigInt: true, withMap: true, withSet: true, withTypedArray: true }),
  text,
  blocks,
  fc.array(
    fc.record({ role: fc.constantFrom('user' as const, 'assistant' as const), content: blocks }),
    { maxLength: 3 },
  ),
  fc.record({ role: fc.constant('assistant' as const), content: blocks }),
  fc.constantFrom(getModelInfo('claude-haiku-4-5'), getModelInfo('claude-opus-4-6'), 'sonnet'),
)

const MATCHES = ['exact', 'normalized', 'none']
const MODES = ['native', 'instruct', 'skip', 'none']

/** What every successful `applyPrefill`/`injectPrefill` result must look like. */
function checkApplied(applied: {
  messages: unknown
  mode: string
  sent?: string | undefined
}): void {
  expect(isMessageArray(applied.messages)).toBe(true)
  expect(MODES).toContain(applied.mode)
  if (applied.mode === 'native' || applied.mode === 'instruct') {
    expect(typeof applied.sent).toBe('string')
    expect(applied.sent).toBe(applied.sent?.trimEnd())
  }
}

describe('wrong argument types (regressions: TypeError from deep inside)', () => {
  it('throw a ValidationError naming the parameter', async () => {
    const haiku = getModelInfo('claude-haiku-4-5')
    expect(() => stripPrefillFromResponse(42 as never, 'x')).toThrow(ValidationError)
    expect(() => stripPrefillFromResponse('x', false as never)).toThrow(
      'stripPrefillFromResponse: prefill must be a string or undefined',
    )
    expect(() => matchPrefill(null as never, 'x')).toThrow(ValidationError)
    expect(() => stripPrefillFromContent('text' as never, 'x')).toThrow(
      'stripPrefillFromContent: content must be an array of content blocks',
    )
    expect(() => stripPrefillFromMessage(null as never, 'x')).toThrow(ValidationError)
    expect(() => ensurePrefillInContent([null] as never, 'x')).toThrow(ValidationError)
    expect(() => injectPrefill({} as never, 'x', haiku)).toThrow(
      'applyPrefill: messages must be an array of messages',
    )
    expect(() => applyPrefill([], 7 as never, haiku)).toThrow(ValidationError)
    expect(() => applyPrefill([], 'x', undefined as never)).toThrow(ValidationError)
    expect(() => modelFamily(12 as never)).toThrow(ValidationError)
    expect(modelFamily({ id: 'x' } as never)).toBeUndefined()
    expect(() => prefillCandidates({} as never, undefined)).toThrow(ValidationError)
    await expect(readPrefillContent(new Map() as never)).rejects.toThrow(
      'loadPrefill: workspace must be a string',
    )
    await expect(loadPrefill('/nonexistent', null as never)).rejects.toThrow(ValidationError)
  })

  it('property: public functions given anything throw a typed error or return a well-formed value', async () => {
    const isString = (v: unknown) => expect(typeof v).toBe('string')
    let returned = 0
    const typed = <T>(f: () => T | Promise<T>, check: (value: Awaited<T>) => void) =>
      onlyTypedErrors(f, (value) => {
        returned++
        check(value)
      })
    await fc.assert(
      fc.asyncProperty(anything, anything, anything, anything, async (a, b, c, d) => {
        await typed(
          () => stripPrefillFromResponse(a as never, b as never),
          (out) => {
            // the result is the response itself or a suffix of it
            isString(out)
            expect((a as string).endsWith(out)).toBe(true)
          },
        )
        await typed(
          () => matchPrefill(a as never, b as never),
          ({ match, end }) => {
            expect(MATCHES).toContain(match)
            expect(Number.isInteger(end) && end >= 0 && end <= (a as string).length).toBe(true)
            if (match === 'none') expect(end).toBe(0)
          },
        )
        await typed(
          () => stripPrefillFromContent(a as never, b as never),
          (out) => {
            expect(isContentBlockArray(out.content)).toBe(true)
            expect(MATCHES).toContain(out.match)
            expect(out.original.endsWith(out.stripped)).toBe(true)
          },
        )
        await typed(
          () => stripPrefillFromMessage(a as never, b as never),
          (out) => expect(MessageSchema.safeParse(out).success).toBe(true),
        )
        await typed(
          () => ensurePrefillInContent(a as never, b as never),
          (out) => expect(isContentBlockArray(out)).toBe(true),
        )
        await typed(
          () => applyPrefill(a as never, b as never, c as never, d as never),
          checkApplied,
        )
        await typed(
          () => injectPrefill(a as never, b as never, c as never, d as never),
          (out) => expect(isMessageArray(out)).toBe(true),
        )
        await typed(
          () => parsePrefillConfig(a),
          (config) => expect(PrefillConfigSchema.safeParse(config).success).toBe(true),
        )
        await typed(
          () => prefill(a as never),
          (mw) => {
            expect(mw.name).toBe('prefill')
            expect(PrefillConfigSchema.safeParse(mw.config).success).toBe(true)
          },
        )
        await typed(
          () => modelFamily(a as never),
          (family) => {
            if (family !== undefined) expect(family).toMatch(/^[a-z0-9][a-z0-9._-]*$/)
          },
        )
        await typed(
          () => prefillCandidates(a as never, b as never, c as never),
          (list) => {
            for (const x of list) {
              isString(x.file)
              expect(typeof x.dynamic).toBe('boolean')
            }
          },
        )
        await typed(
          () => loadPrefill('/nonexistent-prefill-ws', a as never),
          // a workspace that does not exist has no prefill: off, silently
          (load) => expect(load).toEqual({ text: undefined, kind: 'none' }),
        )
        await typed(
          () => readPrefillContent(a as never, { onWarning: () => {} }),
          (text) => {
            if (text !== undefined) {
              isString(text)
              expect(text).toBe(text.trim())
            }
          },
        )
        expect(typeof isPrefillRejection(a)).toBe('boolean')
      }),
      { numRuns: 400 },
    )
    // the generators reach the returning side, so the checks above are exercised
    expect(returned).toBeGreaterThan(400)
  })
})
