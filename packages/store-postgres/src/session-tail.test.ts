import { applyCompaction, lastEntryId } from '@contextkit/agent-loop'
import { type Message, type SessionEntry, textMessage } from '@contextkit/core'
import { sessionHeader } from '@contextkit/core/store'
import type { PGlite } from '@electric-sql/pglite'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { INVALID_ENTRY_WARNING, postgresSessionStore } from './session-store.js'
import { migratedPglite } from './test-support.js'

let db: PGlite
beforeAll(async () => {
  db = await migratedPglite()
}, 60_000)
afterAll(async () => {
  await db.close()
})

const ts = new Date(0).toISOString()
const msg = (id: string, message: Message): SessionEntry => ({
  type: 'message',
  id,
  parentId: null,
  ts,
  message,
})
const chatter = (count: number, from = 0): SessionEntry[] =>
  Array.from({ length: count }, (_, i) =>
    msg(
      `m${from + i}`,
      textMessage((from + i) % 2 === 0 ? 'user' : 'assistant', `turn ${from + i}`),
    ),
  )
const view = (entries: readonly SessionEntry[]) => ({
  applied: applyCompaction(entries),
  last: lastEntryId(entries),
})

describe('postgresSessionStore.loadTail on PGlite', () => {
  test('pages back only to what a resume needs, past several pages, and keeps the header', async () => {
    const store = postgresSessionStore(db)
    await store.append('tail-long', [sessionHeader('tail-long', new Date(0)), ...chatter(3_000)])
    await store.append('tail-long', [
      {
        type: 'compaction',
        id: 'c1',
        parentId: null,
        ts,
        summary: 'Before.',
        firstKeptId: 'm2990',
      },
      ...chatter(4, 3_000),
    ])
    const full = await store.load('tail-long')
    const tail = await store.loadTail('tail-long')
    expect(tail.entries.map((e) => (e.type === 'session' ? 'header' : e.id))).toEqual([
      'header',
      ...Array.from({ length: 10 }, (_, i) => `m${2990 + i}`),
      'c1',
      ...Array.from({ length: 4 }, (_, i) => `m${3000 + i}`),
    ])
    expect(view(tail.entries)).toEqual(view(full.entries))
    // kept from far back (more than one page): still exact
    await store.append('tail-long', [
      { type: 'compaction', id: 'c2', parentId: null, ts, summary: 'Later.', firstKeptId: 'm100' },
    ])
    const far = await store.loadTail('tail-long')
    expect(far.entries).toHaveLength(1 + 3_004 - 100 + 2)
    expect(view(far.entries)).toEqual(view((await store.load('tail-long')).entries))
  })

  test('an invalid row in the tail warns as in load; unknown ids and sessions without compaction', async () => {
    const store = postgresSessionStore(db)
    await store.append('tail-odd', [
      sessionHeader('tail-odd', new Date(0)),
      ...chatter(20),
      { type: 'compaction', id: 'c', parentId: null, ts, summary: 's', firstKeptId: 'm15' },
      ...chatter(3, 20),
    ])
    await db.query(
      `UPDATE contextkit_sessions SET entry = '{"type":"message","id":""}' WHERE session_id = $1 AND seq = 24`,
      ['tail-odd'],
    )
    const full = await store.load('tail-odd')
    const tail = await store.loadTail('tail-odd')
    expect(tail.warnings).toEqual(full.warnings)
    expect(tail.warnings.map((w) => [w.code, w.line])).toEqual([[INVALID_ENTRY_WARNING, 24]])
    expect(view(tail.entries)).toEqual(view(full.entries))
    expect(tail.entries.length).toBeLessThan(full.entries.length)
    expect(await store.loadTail('tail-none')).toEqual({ entries: [], warnings: [] })
    await store.append('tail-plain', [sessionHeader('tail-plain', new Date(0)), ...chatter(600)])
    expect(await store.loadTail('tail-plain')).toEqual(await store.load('tail-plain'))
    await expect(store.loadTail('../x')).rejects.toThrow(/unsafe session id/)
  })
})
