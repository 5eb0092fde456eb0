import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ContextkitError, ValidationError } from '@contextkit/core'
import fc from 'fast-check'
import { afterAll, describe, expect, test } from 'vitest'
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
  stripInjected,
} from './index.js'
import { loadSelfState, resumption, saveSelfState, updateSelfState } from './node.js'

const dir = mkdtempSync(join(tmpdir(), 'resumption-guards-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const anything = fc.anything({
  withBigInt: true,
  withMap: true,
  withSet: true,
  withTypedArray: true,
})
const state = emptySelfState('s')

/** Runs `f`; a throw (or rejection) must be a ContextkitError. */
async function onlyTypedErrors(f: () => unknown): Promise<void> {
  try {
    await f()
  } catch (error) {
    if (!ContextkitError.isInstance(error)) throw error
  }
}

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
    await expect(loadSelfState(join(dir, 'x.json'), null as never)).rejects.toThrow(ValidationError)
    await expect(loadSelfState(42 as never)).rejects.toThrow('loadSelfState: path must be a string')
    await expect(updateSelfState(join(dir, 'x.json'), 'no' as never)).rejects.toThrow(
      ValidationError,
    )
  })

  test('property: public functions given anything throw nothing but ContextkitErrors', async () => {
    const path = join(dir, 'fuzz.json')
    await fc.assert(
      fc.asyncProperty(anything, anything, anything, async (a, b, c) => {
        await onlyTypedErrors(() => captureStreamTail(a as never, b as never))
        await onlyTypedErrors(() => addAnchor(a as never, b as never, c as never))
        await onlyTypedErrors(() => addAnchor(state, a as never, b as never))
        await onlyTypedErrors(() => recordStreamTail(a as never, b as never, c as never))
        await onlyTypedErrors(() => recordStreamTail(state, 'some words here', a as never))
        await onlyTypedErrors(() => markInjected(a as never))
        await onlyTypedErrors(() => stripInjected(a as never, b as never, c as never))
        await onlyTypedErrors(() => stripInjected('x y', a as never, b as never))
        await onlyTypedErrors(() => migrateSelfState(a))
        await onlyTypedErrors(() => emptySelfState(a as never, b as never))
        await onlyTypedErrors(() => resumptionContextFrom(a as never, b as never))
        await onlyTypedErrors(() => resumptionContextFrom(state, a as never))
        await onlyTypedErrors(() => buildResumptionSection(a as never, b as never))
        await onlyTypedErrors(() => buildResumptionMessage(a as never, b as never))
        await onlyTypedErrors(() => resumption(a as never))
        await onlyTypedErrors(() => loadSelfState(path, a as never))
        await onlyTypedErrors(() => saveSelfState(path, a as never, b as never))
      }),
      { numRuns: 300 },
    )
  }, 60_000)
})
