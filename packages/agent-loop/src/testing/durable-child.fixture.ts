/**
 * A worker process of the durable-run crash matrix (durable-crash.test.ts) on a JSONL session.
 * argv[2]: the worker's arguments as JSON (see `DurableWorkerArgs`), plus `dir`, the sessions
 * directory.
 */

import { jsonlSessionStore } from '@contextkit/store-files'
import { durableWorkerProcess } from './durable-matrix.js'

const { dir } = JSON.parse(process.argv[2] ?? '{}') as { dir: string }
await durableWorkerProcess(() => jsonlSessionStore(dir))
