import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ContextkitError, ValidationError } from './errors.js'
import { SessionEntrySchema } from './session-entry-schemas.js'
import { assertSessionId } from './session-id.js'
import { sessionHeader, sessionMessages } from './session-store.js'
import { RevisionConflictError } from './state-store.js'

describe('session ids', () => {
  it('accepts plain ids and refuses anything a path or query would have to escape', () => {
    for (const ok of ['a', 'user-42', 'S.1_x', 'x'.repeat(200)]) {
      expect(() => assertSessionId(ok, 'test')).not.toThrow()
    }
    for (const bad of [
      '',
      '..',
      'a/b',
      'a\\b',
      '../x',
      'a..b',
      '.hidden',
      'x'.repeat(201),
      "a'b",
      'a b',
      'é',
    ]) {
      expect(() => assertSessionId(bad, 'test'), bad).toThrow(ValidationError)
    }
    expect(() => assertSessionId(42, 'test')).toThrow(ValidationError)
  })

  it('never lets a separator or a NUL through (property)', () => {
    fc.assert(
      fc.property(fc.string(), (id) => {
        try {
          assertSessionId(id, 'prop')
          expect(id).not.toMatch(/[/\\\0]/)
          expect(id.includes('..')).toBe(false)
        } catch (error) {
          expect(ValidationError.isInstance(error)).toBe(true)
        }
      }),
    )
  })
})

describe('session entries', () => {
  it('round-trips a header, messages with and without stop data, and custom entries', () => {
    const header = sessionHeader('s1', new Date('2026-01-01T00:00:00Z'))
    expect(header).toEqual({
      type: 'session',
      version: 1,
      id: 's1',
      createdAt: '2026-01-01T00:00:00.000Z',
    })
    const reply = {
      role: 'assistant' as const,
      content: [{ type: 'text' as const, text: 'hi' }],
      stopReason: 'end_turn' as const,
      usage: { input: 1, output: 2, cacheRead: 0, cacheWrite: 0 },
    }
    const entries = [
      header,
      {
        type: 'message',
        id: 'm1',
        parentId: null,
        ts: 't',
        message: { role: 'user', content: [{ type: 'text', text: 'q' }] },
      },
      { type: 'message', id: 'm2', parentId: 'm1', ts: 't', message: reply },
      { type: 'custom', id: 'c1', parentId: 'm2', ts: 't', customType: 'note', data: { a: 1 } },
    ].map((e) => SessionEntrySchema.parse(e))
    expect(sessionMessages(entries)).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'q' }] },
      reply,
    ])
  })
})

describe('RevisionConflictError', () => {
  it('is a typed ContextkitError carrying both revisions', () => {
    const error = new RevisionConflictError('stale', 3, 4)
    expect(ContextkitError.isInstance(error)).toBe(true)
    expect(RevisionConflictError.isInstance(error)).toBe(true)
    expect(error.code).toBe('revision_conflict')
    expect([error.expectedRevision, error.actualRevision]).toEqual([3, 4])
    expect(error.details).toMatchObject({ expectedRevision: 3, actualRevision: 4 })
  })
})
