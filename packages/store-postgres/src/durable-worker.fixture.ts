// A worker process of the durable-run crash matrix (durable-crash.test.ts) on Postgres: its
// arguments as JSON in argv[2] (agent-loop's `DurableWorkerArgs`, plus `url`, the server, and
// `pglite`, whether it is pglite-socket). The pool goes through multiplexSafePool on
// pglite-socket only: a real server gives each connection its own session.
import { durableWorkerProcess } from '@contextkit/agent-loop/testing'
import { ownerAlive, processIdentity } from '@contextkit/core/node'
import pg from 'pg'
import { postgresSessionStore } from './session-store.js'
import { multiplexSafePool } from './test-pool.js'

const { url, pglite } = JSON.parse(process.argv[2] ?? '{}') as { url: string; pglite: boolean }
const pool = new pg.Pool({ connectionString: url, max: 2 })
// on one machine a killed worker's lease is taken over at once (not after it expires)
const lease = { leaseHolder: await processIdentity(), holderAlive: ownerAlive }
await durableWorkerProcess(() =>
  postgresSessionStore(pglite ? multiplexSafePool(pool) : pool, lease),
)
await pool.end()
