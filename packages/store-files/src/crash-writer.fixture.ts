/**
 * A child process for the crash tests. argv: <dir> <session id> <fsync 0|1> <writer tag>.
 * Tag `crash`: appends deterministic batches to one session, forever, until it is killed. It
 * continues from what the session already holds, so killing it mid-write and starting it again
 * tests that a torn tail never costs an earlier entry and the next batch starts clean.
 * Any other tag: a well-behaved writer of 10 tagged batches, started by a line on stdin.
 */
import { sessionHeader } from '@contextkit/core/store'
import { expectedEntry } from './crash-entries.js'
import { jsonlSessionStore } from './jsonl-store.js'

const [dir, id, fsync, tag] = process.argv.slice(2)
if (dir === undefined || id === undefined) throw new Error('usage: <dir> <id> <fsync> <tag>')
const store = jsonlSessionStore(dir, { fsync: fsync === '1', lockTimeoutMs: 60_000 })

if (tag === 'crash') {
  const { entries } = await store.load(id)
  let next = entries.filter((e) => e.type === 'message').length
  if (entries.length === 0) await store.append(id, [sessionHeader(id, new Date(0))])
  process.stdout.write('ready\n')
  for (;;) {
    const size = 1 + (next % 3)
    const batch = Array.from({ length: size }, (_, k) => expectedEntry(next + k))
    await store.append(id, batch)
    next += size
  }
} else {
  // A well-behaved writer: 10 batches of 3 (about 2 MB each), tagged, then exit. It starts on a
  // line on stdin, so that the test starts every writer at once.
  process.stdout.write('ready\n')
  await new Promise((resolve) => process.stdin.once('data', resolve))
  for (let b = 0; b < 10; b++) {
    const batch = [0, 1, 2].map((k) => ({
      ...expectedEntry(k),
      id: `${tag}-${b}-${k}`,
      parentId: null,
    }))
    await store.append(id, batch)
  }
}
