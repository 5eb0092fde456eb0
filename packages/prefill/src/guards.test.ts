import { ContextkitError, getModelInfo, ValidationError } from '@contextkit/core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
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

const anything = fc.anything({
  withBigInt: true,
  withMap: true,
  withSet: true,
  withTypedArray: true,
})

/** Runs `f`; a throw (or rejection) must be a ContextkitError. */
async function onlyTypedErrors(f: () => unknown): Promise<void> {
  try {
    await f()
  } catch (error) {
    if (!ContextkitError.isInstance(error)) throw error
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

  it('property: public functions given anything throw nothing but ContextkitErrors', async () => {
    await fc.assert(
      fc.asyncProperty(anything, anything, anything, anything, async (a, b, c, d) => {
        await onlyTypedErrors(() => stripPrefillFromResponse(a as never, b as never))
        await onlyTypedErrors(() => matchPrefill(a as never, b as never))
        await onlyTypedErrors(() => stripPrefillFromContent(a as never, b as never))
        await onlyTypedErrors(() => stripPrefillFromMessage(a as never, b as never))
        await onlyTypedErrors(() => ensurePrefillInContent(a as never, b as never))
        await onlyTypedErrors(() => applyPrefill(a as never, b as never, c as never, d as never))
        await onlyTypedErrors(() => injectPrefill(a as never, b as never, c as never, d as never))
        await onlyTypedErrors(() => parsePrefillConfig(a))
        await onlyTypedErrors(() => prefill(a as never))
        await onlyTypedErrors(() => modelFamily(a as never))
        await onlyTypedErrors(() => prefillCandidates(a as never, b as never, c as never))
        await onlyTypedErrors(() => loadPrefill('/nonexistent-prefill-ws', a as never))
        await onlyTypedErrors(() => readPrefillContent(a as never, { onWarning: () => {} }))
        expect(typeof isPrefillRejection(a)).toBe('boolean')
      }),
      { numRuns: 400 },
    )
  })
})
