import { ValidationError } from '@contextkit/core'
import { describe, expect, test } from 'vitest'
import { StateVersionError } from './errors.js'
import { emptySelfState, migrateSelfState, SELF_STATE_VERSION } from './self-state.js'

describe('migrateSelfState', () => {
  test('migrates the unversioned seed shape (version 0)', () => {
    const legacy = {
      streamTail: { raw: 'the thought still in motion', sessionKey: 'agent:main', capturedAt: 0 },
      verbatimAnchors: [{ raw: 'Direction matters.', triggerType: 'insight', capturedAt: 1000 }],
    }
    const state = migrateSelfState(legacy)
    expect(state.version).toBe(SELF_STATE_VERSION)
    expect(state.revision).toBe(0)
    expect(state.sessionId).toBe('agent:main')
    expect(state.updatedAt).toBe('1970-01-01T00:00:00.000Z')
    expect(state.streamTail?.raw).toBe('the thought still in motion')
    expect(state.streamTail?.tokenCount).toBeGreaterThan(0)
    expect(state.streamTail?.counterId).toMatch(/^estimate:/)
    expect(state.verbatimAnchors).toEqual([
      { raw: 'Direction matters.', triggerType: 'insight', capturedAt: '1970-01-01T00:00:01.000Z' },
    ])
  })

  test('a version-0 file with only anchors has no tail', () => {
    const state = migrateSelfState({ verbatimAnchors: [{ raw: 'x' }], streamTail: null })
    expect(state.streamTail).toBeUndefined()
    expect(state.verbatimAnchors[0]?.triggerType).toBe('unknown')
  })

  test('current-version states pass through unchanged', () => {
    const state = emptySelfState('s', { now: () => 0, cwd: '/w', branch: 'b' })
    expect(migrateSelfState(JSON.parse(JSON.stringify(state)))).toEqual(state)
  })

  test('a newer version is a StateVersionError, not a validation failure', () => {
    const error = (() => {
      try {
        migrateSelfState({ version: SELF_STATE_VERSION + 1 })
      } catch (e) {
        return e
      }
    })()
    expect(StateVersionError.isInstance(error)).toBe(true)
    expect((error as StateVersionError).recoverable).toBe(true)
  })

  test.each([
    ['null', null],
    ['a string', 'state'],
    ['bad anchors', { verbatimAnchors: 'nope' }],
    ['bad version', { version: 'one' }],
    [
      'bad time',
      { version: 1, revision: 0, sessionId: 's', updatedAt: 'yesterday', verbatimAnchors: [] },
    ],
  ])('%s is a ValidationError', (_what, value) => {
    expect(() => migrateSelfState(value)).toThrow(ValidationError)
  })
})
