/**
 * Vitest global setup of the projects that test against a real PostgreSQL server: one server
 * per test run. The server is the one `CONTEXTKIT_TEST_POSTGRES_URL` names (`.ci/run` starts
 * one), else one started here when the binaries are on the machine (stopped after the run), else
 * none: the tests read `{ skip: reason }` and skip their real-server cases, saying why.
 */
import type { TestProject } from 'vitest/node'
import {
  POSTGRES_URL_ENV,
  type PostgresServer,
  postgresBinDir,
  startPostgresServer,
} from './postgres-server.js'

/** What the tests `inject('postgres')`: the server's URL, or why there is none. */
export type ProvidedPostgres = { url: string } | { skip: string }

declare module 'vitest' {
  export interface ProvidedContext {
    postgres: ProvidedPostgres
  }
}

/** Start (or find) the server, hand it to the tests, stop it afterwards if it is ours. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  let server: PostgresServer | undefined
  let provided: ProvidedPostgres
  const url = process.env[POSTGRES_URL_ENV]
  if (url !== undefined && url !== '') provided = { url }
  else if (postgresBinDir() === undefined) {
    provided = {
      skip: `no PostgreSQL server: set ${POSTGRES_URL_ENV}, or install Debian's postgresql package (initdb, pg_ctl)`,
    }
  } else {
    try {
      server = await startPostgresServer()
      provided = { url: server.url }
    } catch (error) {
      provided = {
        skip: `the PostgreSQL server did not start: ${error instanceof Error ? error.message : String(error)}`,
      }
    }
  }
  if ('skip' in provided)
    console.warn(`${project.name}: real-server tests skipped: ${provided.skip}`)
  project.provide('postgres', provided)
  return async () => {
    await server?.stop()
  }
}
