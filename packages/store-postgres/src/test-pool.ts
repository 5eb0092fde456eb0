// Test-only: a `pg` Pool as the stores see it, for use against pglite-socket.
//
// pglite-socket multiplexes every client connection onto PGlite's one session. It keeps an
// open transaction's statements together, but the several wire messages of a parameterized
// statement sent outside a transaction (Parse, Bind, Execute, Sync) can interleave with
// another connection's, which fails with `portal "" does not exist`. A real Postgres server
// gives each connection its own session, so this wrapper exists only for the test server: it
// runs each standalone statement in its own BEGIN/COMMIT. `connect` and `totalCount` are the
// pool's own, so the stores' transactions (appends, migrate) take their real pool path.
import type pg from 'pg'
import type { PoolLike, QueryResultLike } from './db.js'

/** The pool with standalone statements wrapped in a transaction (see the file comment). */
export function multiplexSafePool(pool: pg.Pool): PoolLike {
  return {
    get totalCount() {
      return pool.totalCount
    },
    connect: () => pool.connect(),
    async query(text: string, params?: unknown[]): Promise<QueryResultLike> {
      const client = await pool.connect()
      let failed = false
      try {
        await client.query('BEGIN')
        const result = await client.query(text, params)
        await client.query('COMMIT')
        return result
      } catch (error) {
        failed = true
        await client.query('ROLLBACK').catch(() => undefined)
        throw error
      } finally {
        client.release(failed)
      }
    },
  }
}
