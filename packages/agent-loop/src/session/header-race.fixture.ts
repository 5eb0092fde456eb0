/**
 * A child process for the header race test: opens a run's view of a session (it loads nothing
 * yet: the session is new), prints "ready", waits for a line on stdin, then appends one user
 * message the way a run does (the header first, since it saw no header). argv: <dir> <id> <tag>.
 */
import { defaultTokenCounter, textMessage } from '@contextkit/core'
import { jsonlSessionStore } from '@contextkit/store-files'
import { SessionRun } from './session-run.js'

const [dir, id, tag] = process.argv.slice(2)
if (dir === undefined || id === undefined) throw new Error('usage: <dir> <id> <tag>')
const store = jsonlSessionStore(dir, { fsync: false, lockTimeoutMs: 20_000 })
const { session } = await SessionRun.open(
  { store, id },
  { tokens: 1_000_000, counter: defaultTokenCounter },
)
process.stdout.write('ready\n')
await new Promise((resolve) => process.stdin.once('data', resolve))
await session.append([textMessage('user', `hello from ${tag}`)])
process.stdout.write('done\n')
