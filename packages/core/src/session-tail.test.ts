import { describe, expect, test } from 'vitest'
import type { SessionEntry } from './session-store.js'
import { resumeTailBoundary } from './session-tail.js'

const ts = '2026-01-01T00:00:00.000Z'
const user = (id: string): SessionEntry => ({
  type: 'message',
  id,
  parentId: null,
  ts,
  message: { role: 'user', content: [{ type: 'text', text: id }] },
})
const reply = (id: string): SessionEntry => ({
  type: 'message',
  id,
  parentId: null,
  ts,
  message: { role: 'assistant', content: [{ type: 'text', text: id }] },
})
const compaction = (id: string, firstKeptId: string): SessionEntry => ({
  type: 'compaction',
  id,
  parentId: null,
  ts,
  summary: 's',
  firstKeptId,
})

/** How many entries, from the end, the boundary takes before it says the tail is enough. */
function reachedAfter(entries: SessionEntry[]): number | undefined {
  const reached = resumeTailBoundary()
  const reversed = [...entries].reverse()
  const at = reversed.findIndex((e) => reached(e))
  return at < 0 ? undefined : at + 1
}

describe('resumeTailBoundary', () => {
  test('stops at the first kept message once the last reply is also seen', () => {
    const log = [
      user('u1'),
      reply('r1'),
      user('u2'),
      reply('r2'),
      compaction('c', 'u2'),
      user('u3'),
    ]
    expect(reachedAfter(log)).toBe(4)
  })

  test('reaches back to the last reply when the kept message comes after it', () => {
    const log = [user('u1'), reply('r1'), user('u2'), compaction('c', 'u2'), user('u3')]
    expect(reachedAfter(log)).toBe(4)
  })

  test('passes over a compaction whose id is only after it; an unknown id keeps it going', () => {
    const later = [
      user('u1'),
      reply('r1'),
      compaction('c1', 'u1'),
      compaction('c2', 'u9'),
      user('u9'),
    ]
    expect(reachedAfter(later)).toBe(5)
    const unknown = [
      user('u1'),
      reply('r1'),
      compaction('c1', 'u1'),
      compaction('c2', 'gone'),
      user('u2'),
    ]
    expect(reachedAfter(unknown)).toBeUndefined()
    expect(reachedAfter([user('u1'), reply('r1'), user('u2')])).toBeUndefined()
  })
})
