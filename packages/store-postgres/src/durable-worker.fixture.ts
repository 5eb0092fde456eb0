// A worker process of the durable-run crash matrix (durable-crash.test.ts) on Postgres: its
// arguments as JSON in argv[2] (agent-loop's `DurableWorkerArgs`, plus `url`, the server).
// The pool goes through multiplexSafePool because the test server is pglite-socket.
import { durableWorkerProcess } from '@contextkit/agent-loop/testing'
import pg from 'pg'
import { postgresSessionStore } from './session-store.js'
import { multiplexSafePool } from './test-pool.js'

const { url } = JSON.parse(process.argv[2] ?? '{}') as { url: string }
const pool = new pg.Pool({ connectionString: url, max: 2 })
await durableWorkerProcess(() => postgresSessionStore(multiplexSafePool(pool)))
await pool.end()
