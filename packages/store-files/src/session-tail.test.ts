import { open, readFile } from 'node:fs/promises'
import { type SessionEntry, textMessage } from '@contextkit/core'
import { sessionHeader } from '@contextkit/core/store'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { tempDir } from '../../../test-utils/temp-dir.js'
import { jsonlSessionStore } from './jsonl-store.js'
import { readSessionTail } from './session-tail.js'

let work: Awaited<ReturnType<typeof tempDir>>
beforeAll(async () => {
  work = await tempDir('session-tail')
})
afterAll(() => work.cleanup())

const ts = new Date(0).toISOString()

/** `count` chatty entries: user turns and plain replies, about 600 bytes each. */
function chatter(count: number, from = 0): SessionEntry[] {
  return Array.from({ length: count }, (_, i) => {
    const n = from + i
    const message =
      n % 2 === 0
        ? textMessage('user', `turn ${n} ${'é🙂'.repeat(150)}`)
        : textMessage('assistant', `reply ${n} ${'x'.repeat(300)}`)
    return { type: 'message', id: `m${n}`, parentId: null, ts, message }
  })
}

describe('jsonlSessionStore.loadTail', () => {
  test('a session without a compaction entry is loaded whole, and an unknown one empty', async () => {
    const store = jsonlSessionStore(work.dir, { fsync: false })
    await store.append('plain', [sessionHeader('plain', new Date(0)), ...chatter(200)])
    expect(await store.loadTail('plain')).toEqual(await store.load('plain'))
    expect(await store.loadTail('missing')).toEqual({ entries: [], warnings: [] })
    await expect(store.loadTail('../x')).rejects.toThrow(/unsafe session id/)
  })

  test('every block size gives the same tail on a real file with multi-byte text', async () => {
    const store = jsonlSessionStore(work.dir, { fsync: false })
    await store.append('blocks', [
      sessionHeader('blocks', new Date(0)),
      ...chatter(40),
      { type: 'compaction', id: 'c', parentId: null, ts, summary: '要約 🙂', firstKeptId: 'm30' },
      ...chatter(5, 40),
    ])
    const handle = await open(store.pathOf('blocks'))
    try {
      const { size } = await handle.stat()
      const source = {
        size,
        read: async (position: number, length: number) => {
          const buffer = Buffer.alloc(length)
          await handle.read(buffer, 0, length, position)
          return buffer
        },
      }
      const expected = await store.loadTail('blocks')
      for (const block of [1, 2, 3, 5, 7, 64, 601, 4096, size + 1]) {
        const tail = await readSessionTail(source, block)
        expect({ entries: tail.entries, warnings: tail.warnings }).toEqual(expected)
      }
      await expect(readSessionTail(source, 0)).rejects.toThrow(/blockSize/)
    } finally {
      await handle.close()
    }
    expect((await readFile(store.pathOf('blocks'), 'utf8')).includes('🙂')).toBe(true)
  })
})
