import pg from 'pg'
import {
  type ListenClient,
  PROGRESS_WARNINGS,
  type ProgressWarning,
  type ResolvedListenerOptions,
} from './listen-options.js'

/** A connection that LISTENs, and how to let it go. */
interface Listening {
  client: Omit<ListenClient, 'release'>
  /** End the connection (or release it to the pool; with an error, the pool discards it). */
  dispose(error?: Error): Promise<void>
}

/** The wait before the first try to connect again; it doubles each failed try, up to the max. */
const FIRST_RETRY_MS = 1_000
const MAX_RETRY_MS = 30_000

/** Open one connection: a client of its own for `connection`, one checked out of `pool`. */
async function openClient(o: ResolvedListenerOptions): Promise<Listening> {
  if (o.pool !== undefined) {
    const client = await o.pool.connect()
    return { client, dispose: async (error) => client.release(error ?? false) }
  }
  const client = new pg.Client({ connectionString: o.connection })
  // until the listener's own handler is on, a failed connection must not be an uncaught error
  client.on('error', () => undefined)
  await client.connect()
  return {
    client,
    dispose: () => client.end().catch(() => undefined),
  }
}

/**
 * One LISTEN connection kept open until {@link KeptListen.stop}: a lost one (an error, an end)
 * is let go and opened again after 1 s, then after twice as long each failed try up to 30 s, with
 * a `worker_progress_reconnecting` warning each time. Each payload on the channel goes to
 * `onPayload`.
 */
export class KeptListen {
  readonly #o: ResolvedListenerOptions
  readonly #onPayload: (payload: string) => void
  #current: Listening | undefined
  #stopped = false
  #delay = FIRST_RETRY_MS
  #timer: NodeJS.Timeout | undefined

  constructor(o: ResolvedListenerOptions, onPayload: (payload: string) => void) {
    this.#o = o
    this.#onPayload = onPayload
  }

  /** Open the first connection and LISTEN; rejects with the driver's error when that fails. */
  async start(): Promise<void> {
    this.#current = await this.#connect()
  }

  /** Stop: no more tries; the connection is ended (or released to the pool). */
  async stop(): Promise<void> {
    if (this.#stopped) return
    this.#stopped = true
    clearTimeout(this.#timer)
    const l = this.#current
    this.#current = undefined
    if (l) {
      this.#detach(l)
      await l.dispose()
    }
  }

  readonly #notification = (...args: unknown[]) => {
    const message = args[0] as { channel?: unknown; payload?: unknown } | undefined
    if (message?.channel === this.#o.channel) this.#onPayload(String(message.payload ?? ''))
  }

  readonly #lost = (...args: unknown[]) => {
    const lost = this.#current
    if (this.#stopped || lost === undefined) return
    this.#current = undefined
    this.#detach(lost)
    const error = args[0]
    void lost.dispose(error instanceof Error ? error : new Error('the connection ended'))
    this.#o.onWarning(lostWarning(this.#o.channel, this.#delay, error))
    this.#retry()
  }

  async #connect(): Promise<Listening> {
    const l = await openClient(this.#o)
    l.client.on('notification', this.#notification)
    l.client.on('error', this.#lost)
    l.client.on('end', this.#lost)
    try {
      await l.client.query(`LISTEN "${this.#o.channel}"`)
    } catch (error) {
      this.#detach(l)
      await l.dispose(error instanceof Error ? error : new Error(String(error)))
      throw error
    }
    return l
  }

  #detach(l: Listening): void {
    l.client.removeListener('notification', this.#notification)
    l.client.removeListener('error', this.#lost)
    l.client.removeListener('end', this.#lost)
  }

  #retry(): void {
    this.#timer = setTimeout(async () => {
      try {
        const l = await this.#connect()
        if (this.#stopped) {
          this.#detach(l)
          await l.dispose()
          return
        }
        this.#current = l
        this.#delay = FIRST_RETRY_MS
      } catch (error) {
        if (this.#stopped) return
        this.#delay = Math.min(this.#delay * 2, MAX_RETRY_MS)
        this.#o.onWarning(lostWarning(this.#o.channel, this.#delay, error))
        this.#retry()
      }
    }, this.#delay)
  }
}

/** The `reconnecting` warning: what was lost, why, and when the next try is. */
function lostWarning(channel: string, delayMs: number, error: unknown): ProgressWarning {
  const reason = error instanceof Error ? error.message : 'the connection ended'
  return {
    code: PROGRESS_WARNINGS.reconnecting,
    message: `the LISTEN connection on "${channel}" was lost (${reason}); connecting again in ${delayMs / 1000} s (notices sent meanwhile are not delivered)`,
    cause: error,
  }
}
