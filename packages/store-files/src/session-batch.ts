import { constants } from 'node:buffer'
import { type SessionEntry, SessionTooLargeError } from '@contextkit/core'
import { sessionEntryText } from '@contextkit/core/store'

/** Largest batch the JSONL store writes at once: Node's largest buffer (4 GiB on 64-bit Node). */
export const MAX_BATCH_BYTES = constants.MAX_LENGTH - 1

/**
 * The lines of a checked batch, as the bytes to append: one JSON line per entry, each ending in
 * `\n`. An entry larger than core's `SESSION_ENTRY_MAX_BYTES` (`maxEntryBytes`, lower in tests),
 * or a batch larger than {@link MAX_BATCH_BYTES}, is refused before anything is written.
 *
 * @throws SessionTooLargeError naming the entry (or the batch) and the limit.
 */
export function batchBytes(
  entries: readonly SessionEntry[],
  fn: string,
  maxEntryBytes?: number,
): Buffer {
  const lines: Buffer[] = []
  let total = 0
  entries.forEach((entry, i) => {
    const line = Buffer.from(`${sessionEntryText(entry, i, fn, maxEntryBytes)}\n`, 'utf8')
    total += line.length
    if (total > MAX_BATCH_BYTES) throw batchTooLarge(fn, total, entries.length)
    lines.push(line)
  })
  return Buffer.concat(lines, total)
}

function batchTooLarge(fn: string, bytes: number, count: number): SessionTooLargeError {
  const message = `expected at most ${MAX_BATCH_BYTES} bytes in one batch, got ${bytes} or more`
  return new SessionTooLargeError(
    `${fn}: a batch of ${count} entries is too large to write at once (${message}); append it in smaller batches. Nothing was written`,
    [{ path: '', message }],
    { details: { what: 'batch', bytes, limit: MAX_BATCH_BYTES } },
  )
}
