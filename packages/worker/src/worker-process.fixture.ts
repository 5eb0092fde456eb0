// Test-only: one worker process of the multi-process tests and the bench. argv[2] is JSON:
// `{ url, concurrency, recordCalls? }`. Prints `ready` once it takes jobs; SIGTERM closes it
// gracefully (`close()`), SIGKILL is what the tests do to it.
import { ownerAlive, processIdentity } from '@contextkit/core/node'
import { postgresSessionStore } from '@contextkit/store-postgres'
import pg from 'pg'
import { scenarioRun } from './test-scenario.js'
import { agentWorker } from './worker.js'

const args = JSON.parse(process.argv[2] ?? '{}') as {
  url: string
  concurrency: number
  recordCalls?: boolean
}
const pool = new pg.Pool({ connectionString: args.url, max: args.concurrency + 2 })
// workers on one machine: a killed worker's session lease is taken over at once
const store = postgresSessionStore(pool, {
  leaseHolder: await processIdentity(),
  holderAlive: ownerAlive,
})
const worker = await agentWorker({
  connection: args.url,
  store,
  run: scenarioRun(pool, { recordCalls: args.recordCalls ?? false }),
  concurrency: args.concurrency,
})
process.stdout.write('ready\n')
process.once('SIGTERM', () => {
  void worker.close({ timeoutMs: 10_000 }).then(async () => {
    await pool.end()
    process.exit(0)
  })
})
