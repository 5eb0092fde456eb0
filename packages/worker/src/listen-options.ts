import { parseWith, ValidationError } from '@contextkit/core'
import * as z from 'zod'
import { DEFAULT_PROGRESS_CHANNEL } from './options.js'
import type { ProgressNotice } from './progress.js'

/**
 * Codes of the warnings a progress listener reports (`ProgressWarning.code`), for comparisons
 * without string literals.
 */
export const PROGRESS_WARNINGS = Object.freeze({
  /** A payload on the channel was not a version-1 notice (not JSON, or a field wrong): ignored. */
  malformed: 'worker_progress_malformed',
  /**
   * The LISTEN connection was lost: the listener connects again (1 s, then doubling up to 30 s);
   * notices sent meanwhile are not delivered.
   */
  reconnecting: 'worker_progress_reconnecting',
  /** A subscriber threw; the others were called, and it stays subscribed. */
  subscriberFailed: 'worker_progress_subscriber_failed',
} as const)

/** Something a progress listener let pass without stopping (see {@link PROGRESS_WARNINGS}). */
export interface ProgressWarning {
  /** One of {@link PROGRESS_WARNINGS}. */
  code: (typeof PROGRESS_WARNINGS)[keyof typeof PROGRESS_WARNINGS]
  /** What happened, for a person. */
  message: string
  /** The payload as received (`malformed`), cut to 1,000 characters. */
  payload?: string
  /** The error behind it (a lost connection, a subscriber's throw). */
  cause?: unknown
}

/**
 * A client checked out of a pool to LISTEN on (a `pg` `PoolClient`): held for the listener's
 * life and released by `close()`.
 */
export interface ListenClient {
  /** Run one statement (`LISTEN …`). */
  query(text: string): Promise<unknown>
  /**
   * `notification` (a NOTIFY on a channel listened to: `{ channel, payload }`), `error` and `end`
   * (the connection failed or ended).
   */
  on(event: string, listener: (...args: unknown[]) => void): unknown
  /** Remove a listener added with `on`. */
  removeListener(event: string, listener: (...args: unknown[]) => void): unknown
  /** Give the client back; with an error, the pool discards it. */
  release(error?: Error | boolean): void
}

/** A pool that hands out clients to LISTEN on: a `pg` `Pool`. */
export interface ListenPool {
  /** Check out one client. */
  connect(): Promise<ListenClient>
}

/** Options of `listenProgress`: exactly one of `connection` and `pool`. */
export interface ProgressListenerOptions {
  /** A PostgreSQL connection string: the listener opens one connection of its own. */
  connection?: string
  /**
   * A `pg` `Pool` of yours instead: one client is checked out for the listener's life (a
   * session-mode connection: LISTEN does not work through PgBouncer's transaction mode).
   */
  pool?: ListenPool
  /** The channel the workers publish on (their `progressChannel`). Default `contextkit_agent_progress`. */
  channel?: string
  /** Where warnings go (a malformed payload, a lost connection). Default: one `console.warn` line each. */
  onWarning?: (warning: ProgressWarning) => void
}

/** Options with their defaults. */
export interface ResolvedListenerOptions {
  connection: string | undefined
  pool: ListenPool | undefined
  channel: string
  onWarning: (warning: ProgressWarning) => void
}

const isFn = (v: unknown) => typeof v === 'function'

const ListenerOptionsSchema = z.strictObject({
  connection: z.string().min(1).optional(),
  pool: z
    .custom<ListenPool>(
      (v) => typeof v === 'object' && v !== null && isFn((v as { connect?: unknown }).connect),
      'expected a pg Pool (connect)',
    )
    .optional(),
  channel: z
    .string()
    .regex(/^[a-z_][a-z0-9_]{0,62}$/, 'a lower-case SQL identifier')
    .optional(),
  onWarning: z.custom<(w: ProgressWarning) => void>(isFn, 'expected a function').optional(),
})

/**
 * Check `listenProgress`'s options (unknown keys, bad values, a missing or doubled connection:
 * a `ValidationError` naming the option) and its callback, and fill in the defaults.
 */
export function resolveListenerOptions(
  options: unknown,
  onNotice: unknown,
): ResolvedListenerOptions {
  const o = parseWith(ListenerOptionsSchema, options, 'listenProgress options')
  if ((o.connection === undefined) === (o.pool === undefined)) {
    throw new ValidationError(
      'Invalid listenProgress options: give exactly one of connection (a connection string) and pool (a pg Pool)',
      [{ path: 'connection', message: 'exactly one of connection and pool' }],
    )
  }
  if (onNotice !== undefined && !isFn(onNotice)) {
    throw new ValidationError(
      'Invalid listenProgress onNotice: expected a function (notice) => void',
      [{ path: 'onNotice', message: 'expected a function' }],
    )
  }
  return {
    connection: o.connection,
    pool: o.pool,
    channel: o.channel ?? DEFAULT_PROGRESS_CHANNEL,
    onWarning: o.onWarning ?? ((w) => console.warn(`worker: ${w.code}: ${w.message}`)),
  }
}

/** Called with each notice, in the order the channel delivered them. */
export type ProgressSubscriber = (notice: ProgressNotice) => void
