import { mkdir, open, readdir, readFile, stat, unlink } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import {
  assertSessionId,
  assertString,
  invalidArgument,
  parseWith,
  type SessionEntry,
  SessionEntrySchema,
  SessionIdSchema,
  type SessionLoadResult,
  type SessionStore,
  ValidationError,
} from '@contextkit/core'
import * as z from 'zod'
import { errnoCode, SessionIoError } from './errors.js'
import { parseSessionLines } from './lines.js'
import { withFileLock } from './lock.js'

/** File name suffix of a session file: `<id>.jsonl`. */
export const SESSION_FILE_SUFFIX = '.jsonl'
/** File name suffix of a session's lock file: `<id>.jsonl.lock`. */
export const SESSION_LOCK_SUFFIX = '.jsonl.lock'

/** Options of {@link jsonlSessionStore}. */
export interface JsonlSessionStoreOptions {
  /**
   * `fsync` every appended batch before `append` resolves. Each `append` call is one turn's
   * batch (the loop appends once, at turn end), so a resolved `append` is on disk. Turn it off
   * only where losing the last turns on a power cut is fine (tests, scratch runs). Default `true`.
   */
  fsync?: boolean
  /** Wait at most this long for a session's lock before failing with `SessionLockError`. Default `30000` ms. */
  lockTimeoutMs?: number
  /**
   * A lock older than this is abandoned and broken, even when its holder seems alive (a holder
   * on another host, a reused pid). A lock whose holder is a dead process on this host is broken
   * at once. Appends hold the lock for one write and one fsync. Default `20000` ms.
   */
  lockStaleMs?: number
}

const OptionsSchema = z
  .strictObject({
    fsync: z.boolean().default(true),
    lockTimeoutMs: z.number().int().nonnegative().default(30_000),
    lockStaleMs: z.number().int().positive().default(20_000),
  })
  .strict()

/** A {@link SessionStore} kept as one JSONL file per session in a directory. */
export interface JsonlSessionStore extends SessionStore {
  /** The directory (absolute) the session files live in. */
  readonly dir: string
  /** The file a session id is kept in (`<dir>/<id>.jsonl`); checks the id. */
  pathOf(id: string): string
}

/**
 * A crash-safe, append-only {@link SessionStore}: one `<id>.jsonl` file per session in `dir`,
 * one JSON entry per line.
 *
 * - `append` validates every entry first (a `ValidationError`, nothing written), then, holding
 *   the session's lock file, writes the whole batch with one `write` call and `fsync`s it. It
 *   never reads the session: it looks at the file's last byte only, and when a crashed writer
 *   left a torn last line, starts the batch on a fresh line. Cost is O(1) in session length.
 * - `load` never fails because of a bad line: a torn last line, a corrupt or invalid line in
 *   the middle are skipped with a `SessionWarning` and every other entry is kept.
 * - The lock file `<id>.jsonl.lock` is broken when its holder is a dead process on this host,
 *   or older than `lockStaleMs`.
 *
 * Nothing touches the disk until the first `append` (which creates `dir`).
 */
export function jsonlSessionStore(
  dir: string,
  options: JsonlSessionStoreOptions = {},
): JsonlSessionStore {
  assertString(dir, 'jsonlSessionStore', 'dir')
  if (dir.length === 0) invalidArgument('jsonlSessionStore', 'dir', 'a non-empty directory path')
  const opts = parseWith(OptionsSchema, options ?? {}, 'jsonlSessionStore options')
  const root = resolve(dir)
  const lockOptions = { timeoutMs: opts.lockTimeoutMs, staleMs: opts.lockStaleMs }
  const fileOf = (id: string) => join(root, `${id}${SESSION_FILE_SUFFIX}`)
  const lockOf = (id: string) => join(root, `${id}${SESSION_LOCK_SUFFIX}`)

  return {
    dir: root,

    pathOf(id) {
      assertSessionId(id, 'jsonlSessionStore.pathOf')
      return fileOf(id)
    },

    async load(id): Promise<SessionLoadResult> {
      assertSessionId(id, 'jsonlSessionStore.load')
      const file = fileOf(id)
      const first = await readSession(file)
      if (first === null) return { entries: [], warnings: [] }
      let parsed = parseSessionLines(first)
      if (parsed.tornTail) {
        // A writer may be in the middle of its write: look again once it has finished.
        try {
          const again = await withFileLock(lockOf(id), () => readSession(file), lockOptions)
          parsed = again === null ? parseSessionLines(new Uint8Array()) : parseSessionLines(again)
        } catch {
          // Cannot take the lock (read-only directory, a busy writer): report what we saw.
        }
      }
      return { entries: parsed.entries, warnings: parsed.warnings }
    },

    async append(id, entries) {
      assertSessionId(id, 'jsonlSessionStore.append')
      if (!Array.isArray(entries)) {
        invalidArgument(
          'jsonlSessionStore.append',
          'entries',
          'an array of session entries',
          entries,
        )
      }
      const lines = entries.map((entry, i) => JSON.stringify(checkEntry(id, entry, i)))
      if (lines.length === 0) return
      const payload = Buffer.from(`${lines.join('\n')}\n`, 'utf8')
      try {
        await mkdir(root, { recursive: true })
      } catch (error) {
        throw ioError(`cannot create the session directory ${root}`, error, root, 'mkdir')
      }
      const file = fileOf(id)
      await withFileLock(lockOf(id), () => writeBatch(file, payload, opts.fsync), lockOptions)
    },

    async list() {
      let names: string[]
      try {
        names = (await readdir(root, { withFileTypes: true }))
          .filter((d) => d.isFile() && d.name.endsWith(SESSION_FILE_SUFFIX))
          .map((d) => d.name.slice(0, -SESSION_FILE_SUFFIX.length))
      } catch (error) {
        if (errnoCode(error) === 'ENOENT') return []
        throw ioError(`cannot list the session directory ${root}`, error, root, 'list')
      }
      return names.filter((id) => SessionIdSchema.safeParse(id).success).sort()
    },

    async delete(id) {
      assertSessionId(id, 'jsonlSessionStore.delete')
      const file = fileOf(id)
      try {
        await stat(file)
      } catch (error) {
        if (errnoCode(error) === 'ENOENT') return false
        throw ioError(`cannot delete the session ${file}`, error, file, 'delete')
      }
      return withFileLock(
        lockOf(id),
        async () => {
          try {
            await unlink(file)
            return true
          } catch (error) {
            if (errnoCode(error) === 'ENOENT') return false
            throw ioError(`cannot delete the session ${file}`, error, file, 'delete')
          }
        },
        lockOptions,
      )
    },
  }
}

/** Validate one entry of a batch; a header must name the session it is appended to. */
function checkEntry(id: string, entry: unknown, index: number): SessionEntry {
  const parsed = parseWith(SessionEntrySchema, entry, `session entry ${index} for "${id}"`)
  if (parsed.type === 'session' && parsed.id !== id) {
    throw new ValidationError(
      `Invalid session entry ${index} for "${id}": the header names session "${parsed.id}"`,
      [{ path: `${index}.id`, message: `expected "${id}"` }],
    )
  }
  return parsed
}

/** The bytes of a session file, or `null` when there is none. */
async function readSession(file: string): Promise<Uint8Array | null> {
  try {
    return await readFile(file)
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return null
    throw ioError(`cannot read the session ${file}`, error, file, 'load')
  }
}

/**
 * Append `payload` (whole lines) to `file`, holding its lock. Reads only the last byte: a file
 * not ending in a newline had its last write torn, so the batch starts on a fresh line. On any
 * failure the file is cut back to its old length, so a batch is written whole or not at all.
 */
async function writeBatch(file: string, payload: Buffer, fsync: boolean): Promise<void> {
  let handle: Awaited<ReturnType<typeof open>>
  try {
    handle = await open(file, 'a+')
  } catch (error) {
    throw ioError(`cannot open the session ${file}`, error, file, 'append')
  }
  let size = 0
  try {
    size = (await handle.stat()).size
    let data = payload
    if (size > 0) {
      const last = Buffer.alloc(1)
      await handle.read(last, 0, 1, size - 1)
      if (last[0] !== 0x0a) data = Buffer.concat([Buffer.from('\n'), payload])
    }
    let offset = 0
    while (offset < data.length) {
      const { bytesWritten } = await handle.write(data, offset, data.length - offset)
      offset += bytesWritten
    }
    if (fsync) await handle.sync()
  } catch (error) {
    await handle.truncate(size).catch(() => {})
    throw ioError(`cannot append to the session ${file}`, error, file, 'append')
  } finally {
    await handle.close().catch(() => {})
  }
  if (fsync && size === 0) await syncDirectory(file)
}

/** Make a newly created file's directory entry durable too (not possible on every platform). */
async function syncDirectory(file: string): Promise<void> {
  try {
    const dir = await open(resolve(file, '..'), 'r')
    try {
      await dir.sync()
    } finally {
      await dir.close()
    }
  } catch {
    // Windows cannot open a directory; the file itself is synced.
  }
}

function ioError(message: string, cause: unknown, path: string, op: string): SessionIoError {
  if (cause instanceof SessionIoError) return cause
  return new SessionIoError(`${message}: ${errnoCode(cause) ?? String(cause)}`, {
    cause,
    details: { path, op, errno: errnoCode(cause) },
  })
}
