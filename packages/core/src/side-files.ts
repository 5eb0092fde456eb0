import { randomUUID } from 'node:crypto'
import { readdir, stat, unlink } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { invalidArgument } from './errors.js'
import { HOST_TAG, processAlive } from './process-identity.js'

/**
 * Youngest age at which a side file whose writer cannot be checked (written on another host) is
 * swept: far longer than any write takes, so a live writer's temp file is never removed.
 */
export const SIDE_FILE_MIN_AGE_MS = 60_000

const PATTERN = /^(?:tmp|stale)-([0-9a-f]{8})-(\d+)-[0-9a-f]{8}$/

/**
 * The name of a side file of `file`: `<file>.<kind>-<host tag>-<pid>-<random>`. Temp files
 * written before a `rename` or `link` and locks moved aside carry their writer's host and pid,
 * so {@link sweepAbandonedSideFiles} can tell an abandoned one from one being written.
 *
 * @throws ValidationError when `file` is not a non-empty string or `kind` is neither.
 */
export function sideFileName(file: string, kind: 'tmp' | 'stale'): string {
  if (typeof file !== 'string' || file.length === 0) {
    invalidArgument('sideFileName', 'file', 'a non-empty path', file)
  }
  if (kind !== 'tmp' && kind !== 'stale')
    invalidArgument('sideFileName', 'kind', "'tmp' or 'stale'", kind)
  return `${file}.${kind}-${HOST_TAG}-${process.pid}-${randomUUID().slice(0, 8)}`
}

/**
 * Remove the side files (see {@link sideFileName}) of each of `files` that writers killed midway
 * left behind. A side file is removed when its writer ran on this host and is gone, or when it
 * is older than both `minAgeMs` and {@link SIDE_FILE_MIN_AGE_MS}; a live writer's file is never
 * touched. Never throws.
 */
export async function sweepAbandonedSideFiles(
  files: readonly string[],
  minAgeMs = SIDE_FILE_MIN_AGE_MS,
): Promise<void> {
  if (!Array.isArray(files)) return
  const maxAge = Math.max(Number.isFinite(minAgeMs) ? minAgeMs : 0, SIDE_FILE_MIN_AGE_MS)
  const byDir = new Map<string, string[]>()
  for (const file of files) {
    if (typeof file !== 'string' || file.length === 0) continue
    const prefixes = byDir.get(dirname(file)) ?? []
    prefixes.push(`${basename(file)}.`)
    byDir.set(dirname(file), prefixes)
  }
  for (const [dir, prefixes] of byDir) {
    let names: string[]
    try {
      names = await readdir(dir)
    } catch {
      continue
    }
    for (const name of names) {
      let match: RegExpExecArray | null = null
      for (const p of prefixes)
        if (!match && name.startsWith(p)) match = PATTERN.exec(name.slice(p.length))
      if (!match) continue
      const file = join(dir, name)
      const gone = match[1] === HOST_TAG && !processAlive(Number(match[2]))
      const old =
        gone ||
        (await stat(file).then(
          (s) => Date.now() - s.mtimeMs > maxAge,
          () => false,
        ))
      if (gone || old) await unlink(file).catch(() => {})
    }
  }
}
