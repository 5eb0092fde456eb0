/**
 * A throwaway PostgreSQL server for tests: `initdb` and `pg_ctl` (Debian's `postgresql` package)
 * in a temporary directory, listening on 127.0.0.1 on a free port, stopped and deleted at the end.
 * Run as root, the server runs as the `postgres` user (initdb refuses root).
 *
 * Used by `.ci/run` (one server for the whole run, its URL handed to the tests in
 * `CONTEXTKIT_TEST_POSTGRES_URL`) and by the store tests' global setup when that variable is
 * unset (a developer's machine). As a command:
 *
 *   node --import tsx test-utils/postgres-server.ts start   prints `export` lines for a shell
 *   node --import tsx test-utils/postgres-server.ts stop DIR
 */
import { execFile } from 'node:child_process'
import { existsSync, readdirSync } from 'node:fs'
import { chown, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir, userInfo } from 'node:os'
import { delimiter, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { promisify } from 'node:util'

const run = promisify(execFile)

/** The environment variable that hands a server's URL to the tests. */
export const POSTGRES_URL_ENV = 'CONTEXTKIT_TEST_POSTGRES_URL'

/** A running throwaway server. */
export interface PostgresServer {
  /** `postgresql://postgres@127.0.0.1:PORT/postgres` (trust authentication, no password). */
  url: string
  /** The temporary directory holding the data directory, the socket and the log. */
  dir: string
  /** Stops the server and deletes `dir`. */
  stop(): Promise<void>
}

/**
 * The directory holding `initdb` and `pg_ctl`: the newest `/usr/lib/postgresql/<major>/bin`
 * (where Debian puts them), else the first on `PATH`; `undefined` when there are none.
 */
export function postgresBinDir(): string | undefined {
  const root = '/usr/lib/postgresql'
  const majors = existsSync(root)
    ? readdirSync(root)
        .filter((v) => /^\d+$/.test(v))
        .sort((a, b) => Number(b) - Number(a))
    : []
  const dirs = [
    ...majors.map((v) => join(root, v, 'bin')),
    ...(process.env.PATH ?? '').split(delimiter),
  ]
  return dirs.find(
    (d) => d !== '' && existsSync(join(d, 'initdb')) && existsSync(join(d, 'pg_ctl')),
  )
}

/** Run a server binary, as `user` when given (root hands the server to an unprivileged user). */
async function runAs(user: string | undefined, bin: string, args: string[]): Promise<string> {
  const [file, argv] =
    user === undefined ? [bin, args] : ['runuser', ['-u', user, '--', bin, ...args]]
  const { stdout } = await run(file, argv, { timeout: 120_000 })
  return stdout
}

/** A TCP port free on 127.0.0.1 right now. */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address()
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0))
    })
  })
}

/** The user the server runs as: `postgres` when we are root, else ourselves. */
function serverUser(): string | undefined {
  return userInfo().uid === 0 ? 'postgres' : undefined
}

/**
 * Create a cluster in a new temporary directory and start it on a free port (durability off:
 * the tests kill clients, never the server). Throws when the binaries are missing or the server
 * does not start; the directory is removed then.
 */
export async function startPostgresServer(): Promise<PostgresServer> {
  const bin = postgresBinDir()
  if (bin === undefined) throw new Error('no PostgreSQL binaries (initdb, pg_ctl) found')
  const user = serverUser()
  const dir = await mkdtemp(join(tmpdir(), 'ck-postgres-'))
  try {
    const data = join(dir, 'data')
    await mkdir(data, { mode: 0o700 })
    if (user !== undefined) {
      const { uid, gid } = await idsOf(user)
      await chown(dir, uid, gid)
      await chown(data, uid, gid)
    }
    const initdb = ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-sync']
    await runAs(user, join(bin, 'initdb'), initdb)
    const port = await freePort()
    const settings = `-p ${port} -c listen_addresses=127.0.0.1 -k ${dir} -c fsync=off -c synchronous_commit=off -c full_page_writes=off`
    const log = join(dir, 'server.log')
    await runAs(user, join(bin, 'pg_ctl'), [
      '-D',
      data,
      '-l',
      log,
      '-w',
      '-t',
      '60',
      '-o',
      settings,
      'start',
    ])
  } catch (error) {
    await rm(dir, { recursive: true, force: true })
    throw error
  }
  return postgresServerAt(dir)
}

/** The running server whose directory is `dir` (as `startPostgresServer` left it). */
async function postgresServerAt(dir: string): Promise<PostgresServer> {
  const port = await portOf(dir)
  return {
    url: `postgresql://postgres@127.0.0.1:${port}/postgres`,
    dir,
    stop: () => stopPostgresServer(dir),
  }
}

/** The port in the server's `postmaster.pid` (its fourth line). */
async function portOf(dir: string): Promise<number> {
  const pid = await readFile(join(dir, 'data', 'postmaster.pid'), 'utf8')
  return Number(pid.split('\n')[3])
}

async function idsOf(user: string): Promise<{ uid: number; gid: number }> {
  const [uid, gid] = await Promise.all([run('id', ['-u', user]), run('id', ['-g', user])])
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) }
}

/** Stop the server of `dir` at once (no checkpoint: the data is thrown away) and delete `dir`. */
export async function stopPostgresServer(dir: string): Promise<void> {
  const bin = postgresBinDir()
  const data = join(dir, 'data')
  if (bin !== undefined && existsSync(join(data, 'postmaster.pid'))) {
    await runAs(serverUser(), join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop'])
  }
  await rm(dir, { recursive: true, force: true })
}

async function main(argv: readonly string[]): Promise<void> {
  const [command, dir] = argv
  if (command === 'start') {
    const server = await startPostgresServer()
    process.stdout.write(`export ${POSTGRES_URL_ENV}='${server.url}'\n`)
    process.stdout.write(`export CONTEXTKIT_TEST_POSTGRES_DIR='${server.dir}'\n`)
    return
  }
  if (command === 'stop' && dir !== undefined) return stopPostgresServer(dir)
  throw new Error('usage: postgres-server.ts start | stop DIR')
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    process.stderr.write(
      `postgres-server: ${error instanceof Error ? error.message : String(error)}\n`,
    )
    process.exitCode = 1
  })
}
