import { textMessage, ValidationError } from '@contextkit/core'
import { sessionHeader } from '@contextkit/core/store'
import { describe, expect, test } from 'vitest'
import { lastEntryId, sessionMessageEntries } from './entries.js'

describe('sessionMessageEntries', () => {
  test('wraps messages as chained entries after the given parent', () => {
    let n = 0
    const entries = sessionMessageEntries(
      [textMessage('user', 'a'), textMessage('assistant', 'b')],
      {
        parentId: 'p',
        now: () => new Date('2026-02-03T04:05:06Z'),
        newId: () => `id${n++}`,
      },
    )
    expect(entries).toEqual([
      {
        type: 'message',
        id: 'id0',
        parentId: 'p',
        ts: '2026-02-03T04:05:06.000Z',
        message: textMessage('user', 'a'),
      },
      {
        type: 'message',
        id: 'id1',
        parentId: 'id0',
        ts: '2026-02-03T04:05:06.000Z',
        message: textMessage('assistant', 'b'),
      },
    ])
  })

  test('starts a chain at null by default, with unique ids', () => {
    const entries = sessionMessageEntries([textMessage('user', 'a'), textMessage('user', 'b')])
    expect(entries[0]?.parentId).toBeNull()
    expect(entries[1]?.parentId).toBe(entries[0]?.id)
    expect(entries[0]?.id).not.toBe(entries[1]?.id)
    expect(() => sessionMessageEntries('x' as never)).toThrow(ValidationError)
  })
})

describe('lastEntryId', () => {
  test('names the last entry a new one can follow', () => {
    const header = sessionHeader('s')
    expect(lastEntryId([])).toBeNull()
    expect(lastEntryId([header])).toBeNull()
    const entries = sessionMessageEntries([textMessage('user', 'a')])
    expect(lastEntryId([header, ...entries])).toBe(entries[0]?.id)
  })
})
