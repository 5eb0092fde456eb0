import { mkdir } from 'node:fs/promises'
import { join, relative, resolve } from 'node:path'
import type { SessionStore, StateStore, Trace, TraceReader } from '@contextkit/core'
import type { SelfState } from '@contextkit/resumption'
import { DemoUsageError } from './errors.js'

/** Where the demo keeps sessions and resumption state. */
export interface DemoStores {
  kind: 'files' | 'postgres' | 'pglite'
  /** Absent for `files`: the runner's own JSONL store and state file. */
  sessionStore?: SessionStore
  stateStore?: StateStore<SelfState>
  /**
   * Absent for `files` (the runner's JSONL traces): a run's trace written beside the sessions
   * (store-postgres' trace table); flush it when the run ends.
   */
  openTrace?: (sessionId: string) => Trace & { flush(): Promise<void> }
  /** Absent for `files`: where the inspector reads the traces `openTrace` writes. */
  traces?: TraceReader
  /** One line for the user, e.g. `pglite:/data/agents (tables contextkit_sessions, …)`. */
  description: string
  /** Where one session is, for the summary. */
  location(sessionId: string): string
  close(): Promise<void>
}

/** The `--store` values, for the usage text and errors. */
export const STORE_SPECS = 'files, postgres:<connection url> or pglite:<dir>'

function redact(url: string): string {
  try {
    const u = new URL(url)
    if (u.password) u.password = '***'
    return u.toString()
  } catch {
    return url
  }
}

function fileStores(workspace: string): DemoStores {
  const dir = join(workspace, '.contextkit')
  return {
    kind: 'files',
    description: `files in ${dir}`,
    location: (id) => join(dir, 'sessions', `${id}.jsonl`),
    close: async () => {},
  }
}

async function withPostgres(
  db: Parameters<typeof import('@contextkit/store-postgres').migrate>[0],
  kind: 'postgres' | 'pglite',
  where: string,
  close: () => Promise<void>,
): Promise<DemoStores> {
  const {
    DEFAULT_SESSION_TABLE,
    migrate,
    postgresSessionStore,
    postgresStateStore,
    postgresTrace,
    postgresTraceReader,
  } = await import('@contextkit/store-postgres')
  try {
    await migrate(db)
  } catch (error) {
    await close().catch(() => {})
    const why = error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error)
    throw new DemoUsageError('store', `cannot open --store ${where}: ${why}`, { cause: error })
  }
  return {
    kind,
    sessionStore: postgresSessionStore(db),
    stateStore: postgresStateStore<SelfState>(db),
    openTrace: (sessionId) => postgresTrace(db, sessionId),
    traces: postgresTraceReader(db),
    description: `${where} (migrated; sessions in table ${DEFAULT_SESSION_TABLE})`,
    location: (id) => `${where} → ${DEFAULT_SESSION_TABLE}, session "${id}"`,
    close,
  }
}

/** The connection URL of a `postgres:<url>` (or a plain `postgres://…`) spec; else `undefined`. */
export function postgresUrlOf(spec: string): string | undefined {
  const url =
    spec.startsWith('postgres:') && !spec.startsWith('postgres://')
      ? spec.slice('postgres:'.length)
      : spec
  return /^postgres(ql)?:\/\//.test(url) ? url : undefined
}

/**
 * Open the stores `--store` names: `files` (default: the runner's JSONL sessions and state file
 * under `workspace/.contextkit/`), `postgres:<url>` (a `pg` pool on a Postgres server; a plain
 * `postgres://…` URL works too) or `pglite:<dir>` (Postgres in-process, data in `dir`, relative
 * to `cwd`). The tables are created or updated with `migrate`. The drivers are loaded only when
 * asked for. A spec it does not know, or a database it cannot open, is a {@link DemoUsageError}.
 */
export async function openStores(
  spec: string | undefined,
  workspace: string,
  cwd: string = process.cwd(),
): Promise<DemoStores> {
  if (spec === undefined || spec === 'files') return fileStores(workspace)
  if (spec.startsWith('pglite:')) {
    const dir = resolve(cwd, spec.slice('pglite:'.length) || '.')
    const where = `pglite:${relative(cwd, dir) || '.'}`
    const { PGlite } = await import('@electric-sql/pglite')
    let db: InstanceType<typeof PGlite>
    try {
      await mkdir(dir, { recursive: true })
      db = await PGlite.create(dir)
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error)
      throw new DemoUsageError('store', `cannot open --store ${where}: ${why}`, { cause: error })
    }
    return withPostgres(db, 'pglite', where, () => db.close())
  }
  const url = postgresUrlOf(spec)
  if (url !== undefined) {
    const pg = (await import('pg')).default
    const pool = new pg.Pool({ connectionString: url, max: 4, connectionTimeoutMillis: 5000 })
    pool.on('error', () => {}) // an idle client's lost connection: the next query reports it
    return withPostgres(pool, 'postgres', `postgres:${redact(url)}`, () => pool.end())
  }
  throw new DemoUsageError('store', `unknown --store "${spec}" (use ${STORE_SPECS})`)
}
