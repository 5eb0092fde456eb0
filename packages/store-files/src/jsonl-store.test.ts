import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { type SessionEntry, ValidationError } from '@contextkit/core'
import { withFileLock } from '@contextkit/core/node'
import { sessionHeader } from '@contextkit/core/store'
import {
  messageEntries,
  newSession,
  sessionStoreChecks,
  sessionStoreConformance,
} from '@contextkit/core/testing'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { tempDir } from '../../../test-utils/temp-dir.js'
import { SessionIoError } from './errors.js'
import { jsonlSessionStore } from './jsonl-store.js'
import { SESSION_WARNING_CODES } from './warning-codes.js'

let work: Awaited<ReturnType<typeof tempDir>>
let n = 0
/** A fresh, not yet existing directory for one test. */
const freshDir = () => join(work.dir, `store-${n++}`)

beforeAll(async () => {
  work = await tempDir('jsonl-store')
})
afterAll(() => work.cleanup())

describe('conformance', () => {
  for (const check of sessionStoreChecks(() => jsonlSessionStore(freshDir()))) {
    test(check.name, check.run, 30_000)
  }

  test('the whole suite passes against one shared directory too', async () => {
    const shared = freshDir()
    const report = await sessionStoreConformance(() => jsonlSessionStore(shared))
    expect(report.passed.length).toBe(sessionStoreChecks(() => jsonlSessionStore(shared)).length)
  }, 60_000)
})

function header(id: string): SessionEntry {
  return sessionHeader(id, new Date('2026-01-01T00:00:00Z'))
}

describe('torn and corrupt lines', () => {
  test('a torn last line is skipped with a warning and the next batch starts on a fresh line', async () => {
    const store = jsonlSessionStore(freshDir())
    const first = newSession('s', 3)
    await store.append('s', first)
    const torn = JSON.stringify(messageEntries('torn', 1)[0]).slice(0, 40)
    await appendFile(store.pathOf('s'), torn)

    const loaded = await store.load('s')
    expect(loaded.entries).toEqual(first)
    expect(loaded.warnings).toEqual([
      expect.objectContaining({ code: SESSION_WARNING_CODES.tornLine, line: 5 }),
    ])

    const next = messageEntries('next', 2, 's-m-2')
    await store.append('s', next)
    const text = await readFile(store.pathOf('s'), 'utf8')
    expect(text.split('\n')[4]).toBe(torn) // the fragment stays on its own line, untouched
    const after = await store.load('s')
    expect(after.entries).toEqual([...first, ...next])
    expect(after.warnings).toEqual([
      expect.objectContaining({ code: SESSION_WARNING_CODES.corruptLine, line: 5 }),
    ])
  })

  test('a torn line cut inside a multi-byte character is reported, not mis-decoded', async () => {
    const store = jsonlSessionStore(freshDir())
    await store.append('s', [header('s')])
    const line = Buffer.from(JSON.stringify(messageEntries('u', 1, null, () => '漢字🙂')[0]))
    const cut = line.indexOf(Buffer.from('🙂')) + 2
    await appendFile(store.pathOf('s'), line.subarray(0, cut))
    const loaded = await store.load('s')
    expect(loaded.entries).toEqual([header('s')])
    expect(loaded.warnings.map((w) => w.code)).toEqual([SESSION_WARNING_CODES.tornLine])
  })

  test('a whole last entry without its newline is kept, and the next batch goes on a new line', async () => {
    const store = jsonlSessionStore(freshDir())
    await store.append('s', [header('s')])
    const [entry] = messageEntries('m', 1)
    await appendFile(store.pathOf('s'), JSON.stringify(entry))
    expect(await store.load('s')).toEqual({ entries: [header('s'), entry], warnings: [] })
    const more = messageEntries('n', 1, 'm-0')
    await store.append('s', more)
    expect(await store.load('s')).toEqual({
      entries: [header('s'), entry, ...more],
      warnings: [],
    })
  })

  test('corrupt lines in the middle are skipped with warnings; nothing else is lost', async () => {
    const store = jsonlSessionStore(freshDir())
    const entries = newSession('s', 4)
    await store.append('s', entries)
    const file = store.pathOf('s')
    const lines = (await readFile(file, 'utf8')).trimEnd().split('\n')
    const garbage = [
      '{"type":"message", broken',
      '{"type":"message","id":"x"}',
      '[1,2,3]',
      '',
      '   ',
    ]
    const body = Buffer.concat([
      Buffer.from(`${lines.slice(0, 2).join('\n')}\n${garbage.slice(0, 2).join('\n')}\n`),
      Buffer.from([0xff, 0xfe, 0x0a]), // not UTF-8
      Buffer.from(`${lines.slice(2, 4).join('\n')}\n${garbage.slice(2).join('\n')}\n`),
      Buffer.from(`${lines.slice(4).join('\n')}\n`),
    ])
    await writeFile(file, body)
    const loaded = await store.load('s')
    expect(loaded.entries).toEqual(entries)
    expect(loaded.warnings.map((w) => [w.code, w.line])).toEqual([
      [SESSION_WARNING_CODES.corruptLine, 3],
      [SESSION_WARNING_CODES.invalidEntry, 4],
      [SESSION_WARNING_CODES.corruptLine, 5],
      [SESSION_WARNING_CODES.invalidEntry, 8],
    ])
  })

  test('a header from a newer format version is read as far as possible, with a warning', async () => {
    const store = jsonlSessionStore(freshDir())
    await mkdir(store.dir, { recursive: true })
    const future = { ...header('s'), version: 99 }
    const [entry] = messageEntries('m', 1)
    await writeFile(store.pathOf('s'), `${JSON.stringify(future)}\n${JSON.stringify(entry)}\n`)
    const loaded = await store.load('s')
    expect(loaded.entries).toEqual([future, entry])
    expect(loaded.warnings.map((w) => w.code)).toEqual([SESSION_WARNING_CODES.newerVersion])
  })

  test('a load that finds a half-written tail waits for the writer and reads it whole', async () => {
    const store = jsonlSessionStore(freshDir())
    await store.append('s', [header('s')])
    const file = store.pathOf('s')
    const line = `${JSON.stringify(messageEntries('m', 1)[0])}\n`
    const lockPath = `${file}.lock`
    let loading: ReturnType<typeof store.load> | undefined
    await withFileLock(
      lockPath,
      async () => {
        await appendFile(file, line.slice(0, 30)) // a writer in the middle of its write
        loading = store.load('s')
        await new Promise((resolve) => setTimeout(resolve, 50))
        await appendFile(file, line.slice(30))
      },
      { timeoutMs: 1000, staleMs: 10_000 },
    )
    expect(await loading).toEqual({
      entries: [header('s'), ...messageEntries('m', 1)],
      warnings: [],
    })
  })
})

describe('appends', () => {
  test('append writes whole lines and never reads what is already there', async () => {
    const store = jsonlSessionStore(freshDir(), { fsync: false })
    await store.append('s', [header('s')])
    // Garbage in the file does not stop an append: it only looks at the last byte.
    await appendFile(store.pathOf('s'), 'not json at all\n')
    const more = messageEntries('m', 2)
    await store.append('s', more)
    const text = await readFile(store.pathOf('s'), 'utf8')
    expect(text.endsWith('\n')).toBe(true)
    expect(text.trimEnd().split('\n')).toHaveLength(4)
    expect((await store.load('s')).entries).toEqual([header('s'), ...more])
  })

  test('a file system failure is a typed SessionIoError and loses nothing', async () => {
    const store = jsonlSessionStore(freshDir())
    await mkdir(store.pathOf('dir'), { recursive: true }) // a directory where the file would be
    await expect(store.append('dir', [header('dir')])).rejects.toSatisfy((e) =>
      SessionIoError.isInstance(e),
    )
    await expect(store.load('dir')).rejects.toSatisfy((e) => SessionIoError.isInstance(e))
    expect(await store.list()).toEqual([])
  })

  test('options and the directory are validated', () => {
    expect(() => jsonlSessionStore('')).toThrow(ValidationError)
    expect(() => jsonlSessionStore(42 as unknown as string)).toThrow(ValidationError)
    expect(() => jsonlSessionStore('x', { lockTimeoutMs: -1 })).toThrow(ValidationError)
    expect(() => jsonlSessionStore('x', { fsync: 'yes' as unknown as boolean })).toThrow(
      ValidationError,
    )
    expect(() => jsonlSessionStore('x', { nope: 1 } as never)).toThrow(ValidationError)
    expect(() => jsonlSessionStore('x').pathOf('../etc/passwd')).toThrow(ValidationError)
  })

  test('nothing touches the disk before the first append', async () => {
    const dir = freshDir()
    const store = jsonlSessionStore(dir)
    expect(await store.list()).toEqual([])
    expect(await store.load('s')).toEqual({ entries: [], warnings: [] })
    expect(await store.delete('s')).toBe(false)
    await expect(readFile(dir)).rejects.toMatchObject({ code: 'ENOENT' })
  })
})

describe('list', () => {
  test('names only session files with safe ids', async () => {
    const store = jsonlSessionStore(freshDir())
    await store.append('b', [header('b')])
    await store.append('a', [header('a')])
    const dir = store.dir
    await writeFile(join(dir, '.hidden.jsonl'), '')
    await writeFile(join(dir, 'a..b.jsonl'), '')
    await writeFile(join(dir, 'notes.txt'), '')
    await writeFile(join(dir, 'c.jsonl.lock'), '')
    await mkdir(join(dir, 'd.jsonl'))
    expect(await store.list()).toEqual(['a', 'b'])
  })
})
