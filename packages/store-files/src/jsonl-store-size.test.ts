import { constants } from 'node:buffer'
import { once } from 'node:events'
import { createWriteStream } from 'node:fs'
import { mkdir, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { type SessionEntry, SessionTooLargeError } from '@contextkit/core'
import { SESSION_ENTRY_MAX_BYTES, sessionHeader } from '@contextkit/core/store'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { tempDir } from '../../../test-utils/temp-dir.js'
import { jsonlSessionStore } from './jsonl-store.js'

// Sessions larger than one JavaScript string (V8: 2^29 − 24 UTF-16 units, ~512 Mi): written
// without limit, they must load. The 2 GB figures are the bench's (bench/session-size.bench.ts).

let work: Awaited<ReturnType<typeof tempDir>>
beforeAll(async () => {
  work = await tempDir('jsonl-size')
})
afterAll(() => work.cleanup())

const MIB = 1024 * 1024
const TS = '2026-01-01T00:00:00.000Z'

/** Message entry `n` of a 1 MiB line: a user turn of one text block. */
function bigEntry(n: number, text: string): SessionEntry {
  return {
    type: 'message',
    id: `m${n}`,
    parentId: n === 0 ? null : `m${n - 1}`,
    ts: TS,
    message: { role: n % 2 === 0 ? 'user' : 'assistant', content: [{ type: 'text', text }] },
  }
}

/**
 * Write a session of `count` lines of 1 MiB each with a write stream, the same text buffer
 * written into every line (nothing is serialized per line); returns the file's bytes.
 */
async function writeBigSession(file: string, id: string, count: number): Promise<number> {
  const out = createWriteStream(file)
  const text = Buffer.alloc(MIB - 200, 'x')
  out.write(`${JSON.stringify(sessionHeader(id, new Date(TS)))}\n`)
  for (let n = 0; n < count; n++) {
    const [before, after] = JSON.stringify(bigEntry(n, '@')).split('@')
    out.write(before as string)
    out.write(text)
    if (!out.write(`${after}\n`)) await once(out, 'drain')
  }
  out.end()
  await once(out, 'close')
  return (await stat(file)).size
}

describe('a JSONL session past the string limit', () => {
  test('560 lines of 1 MiB (past the string limit) load whole and from a compaction', async () => {
    const dir = join(work.dir, 'big')
    await mkdir(dir, { recursive: true })
    const store = jsonlSessionStore(dir, { fsync: false })
    try {
      const size = await writeBigSession(store.pathOf('big'), 'big', 560)
      expect(size).toBeGreaterThan(constants.MAX_STRING_LENGTH)

      const loaded = await store.load('big')
      expect(loaded.warnings).toEqual([])
      expect(loaded.entries).toHaveLength(561)
      expect(loaded.entries[0]).toEqual(sessionHeader('big', new Date(TS)))
      const last = loaded.entries[560]
      expect(last?.id).toBe('m559')
      expect(last?.type === 'message' && last.message.content[0]).toMatchObject({
        type: 'text',
        text: expect.stringMatching(/^x{1048376}$/),
      })
      loaded.entries.length = 0 // let the 560 MB of strings go

      // a compaction near the end: the run's load reads back only that far
      await store.append('big', [
        {
          type: 'compaction',
          id: 'k',
          parentId: 'm559',
          ts: TS,
          summary: 'Read 560 files.',
          firstKeptId: 'm559',
        },
        bigEntry(560, 'the end'),
      ])
      const tail = await store.loadTail('big')
      expect(tail.entries.map((e) => e.id)).toEqual(['big', 'm559', 'k', 'm560'])
      expect(tail.warnings).toEqual([])
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  }, 300_000)

  test('an entry larger than SESSION_ENTRY_MAX_BYTES is refused at append, nothing written', async () => {
    const dir = join(work.dir, 'refused')
    const store = jsonlSessionStore(dir, { fsync: false })
    await store.append('s', [sessionHeader('s', new Date(TS)), bigEntry(0, 'small')])
    // 3 UTF-8 bytes a character: over the limit in bytes with a third of the characters
    const huge = bigEntry(1, 'あ'.repeat(Math.ceil(SESSION_ENTRY_MAX_BYTES / 3)))
    const error = await store.append('s', [bigEntry(2, 'ok'), huge]).catch((e: unknown) => e)
    expect(SessionTooLargeError.isInstance(error)).toBe(true)
    expect((error as SessionTooLargeError).details).toMatchObject({
      what: 'entry',
      index: 1,
      limit: SESSION_ENTRY_MAX_BYTES,
    })
    expect((await store.load('s')).entries.map((e) => e.id)).toEqual(['s', 'm0'])
  }, 300_000)
})
