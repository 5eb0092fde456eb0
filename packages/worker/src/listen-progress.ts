import pg from 'pg'
import { ProgressListenError } from './errors.js'
import {
  type ListenClient,
  PROGRESS_WARNINGS,
  type ProgressListenerOptions,
  type ProgressSubscriber,
  type ProgressWarning,
  type ResolvedListenerOptions,
  resolveListenerOptions,
} from './listen-options.js'
import { type ProgressNotice, ProgressNoticeSchema } from './progress.js'

/** Listening to the workers' progress: add subscribers, then `close()`. */
export interface ProgressListener {
  /** Call `onNotice` with every valid notice from now on; returns its unsubscribe. */
  subscribe(onNotice: ProgressSubscriber): () => void
  /** Stop listening and give the connection back (end it, or release it to your pool). */
  close(): Promise<void>
}

/** A connection that LISTENs, and how to let it go. */
interface Listening {
  client: Omit<ListenClient, 'release'>
  /** End the connection (or release it to the pool; with an error, the pool discards it). */
  dispose(error?: Error): Promise<void>
}

const FIRST_RETRY_MS = 1_000
const MAX_RETRY_MS = 30_000
const PAYLOAD_SHOWN = 1_000

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

/** The notice a payload holds, or `undefined` after a `malformed` warning. */
export function parseNotice(
  payload: string,
  warn: (w: ProgressWarning) => void,
): ProgressNotice | undefined {
  const shown = payload.length > PAYLOAD_SHOWN ? `${payload.slice(0, PAYLOAD_SHOWN)}…` : payload
  let value: unknown
  try {
    value = JSON.parse(payload)
  } catch {
    warn({
      code: PROGRESS_WARNINGS.malformed,
      message: 'a progress payload is not JSON: ignored',
      payload: shown,
    })
    return undefined
  }
  const parsed = ProgressNoticeSchema.safeParse(value)
  if (parsed.success) return parsed.data
  const issue = parsed.error.issues[0]
  const where = issue?.path.length ? issue.path.join('.') : '(root)'
  warn({
    code: PROGRESS_WARNINGS.malformed,
    message: `a progress payload is not a version-1 notice (${where}: ${issue?.message ?? 'invalid'}): ignored`,
    payload: shown,
  })
  return undefined
}

/**
 * Listen to the progress the workers publish (LISTEN on their `progressChannel`): each NOTIFY
 * payload is parsed and checked as a version-1 {@link ProgressNotice} and handed to `onNotice`
 * (when given) and every subscriber, in the order received; a malformed payload is ignored with
 * a `worker_progress_malformed` warning. A lost connection is opened again (1 s, doubling up to
 * 30 s, a `worker_progress_reconnecting` warning each try); notices sent while it was down are not
 * delivered, so treat them as a wake-up, not as the record (the session log is). Holds one
 * connection: its own with `connection`, one of your `pool`'s with `pool`.
 *
 * To wake an inspector with the workers' steps, give `startInspector` this `changes`:
 * `(onChange) => listener.subscribe((n) => onChange(n.sessionId))`.
 *
 * @throws ValidationError for bad options; ProgressListenError when the first connection or
 * its LISTEN fails.
 */
export async function listenProgress(
  options: ProgressListenerOptions,
  onNotice?: ProgressSubscriber,
): Promise<ProgressListener> {
  const o = resolveListenerOptions(options, onNotice)
  const subscribers = new Set<ProgressSubscriber>(onNotice ? [onNotice] : [])
  const state = {
    closed: false,
    current: undefined as Listening | undefined,
    delay: FIRST_RETRY_MS,
  }
  let timer: NodeJS.Timeout | undefined

  const deliver = (notice: ProgressNotice) => {
    for (const subscriber of [...subscribers]) {
      try {
        subscriber(notice)
      } catch (error) {
        o.onWarning({
          code: PROGRESS_WARNINGS.subscriberFailed,
          message: `a progress subscriber threw: ${error instanceof Error ? error.message : String(error)}`,
          cause: error,
        })
      }
    }
  }
  const onNotification = (...args: unknown[]) => {
    const message = args[0] as { channel?: unknown; payload?: unknown }
    if (message?.channel !== o.channel) return
    const notice = parseNotice(String(message.payload ?? ''), o.onWarning)
    if (notice) deliver(notice)
  }
  const detach = (l: Listening) => {
    l.client.removeListener('notification', onNotification)
    l.client.removeListener('error', onLost)
    l.client.removeListener('end', onLost)
  }
  const connect = async (): Promise<Listening> => {
    const l = await openClient(o)
    l.client.on('notification', onNotification)
    l.client.on('error', onLost)
    l.client.on('end', onLost)
    try {
      await l.client.query(`LISTEN "${o.channel}"`)
    } catch (error) {
      detach(l)
      await l.dispose(error instanceof Error ? error : new Error(String(error)))
      throw error
    }
    return l
  }
  const retry = () => {
    timer = setTimeout(async () => {
      try {
        const l = await connect()
        if (state.closed) await l.dispose()
        else [state.current, state.delay] = [l, FIRST_RETRY_MS]
      } catch (error) {
        if (state.closed) return
        state.delay = Math.min(state.delay * 2, MAX_RETRY_MS)
        o.onWarning(lostWarning(o.channel, state.delay, error))
        retry()
      }
    }, state.delay)
  }
  function onLost(...args: unknown[]) {
    const error = args[0]
    const lost = state.current
    if (state.closed || lost === undefined) return
    state.current = undefined
    detach(lost)
    void lost.dispose(error instanceof Error ? error : new Error('the connection ended'))
    o.onWarning(lostWarning(o.channel, state.delay, error))
    retry()
  }

  try {
    state.current = await connect()
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error)
    throw new ProgressListenError(`Cannot listen on "${o.channel}": ${reason}`, {
      cause: error,
      details: { channel: o.channel },
    })
  }
  return {
    subscribe(subscriber) {
      subscribers.add(subscriber)
      return () => void subscribers.delete(subscriber)
    },
    async close() {
      if (state.closed) return
      state.closed = true
      clearTimeout(timer)
      subscribers.clear()
      const l = state.current
      state.current = undefined
      if (l) {
        detach(l)
        await l.dispose()
      }
    },
  }
}

function lostWarning(channel: string, delayMs: number, error: unknown): ProgressWarning {
  const reason = error instanceof Error ? error.message : 'the connection ended'
  return {
    code: PROGRESS_WARNINGS.reconnecting,
    message: `the LISTEN connection on "${channel}" was lost (${reason}); connecting again in ${delayMs / 1000} s (notices sent meanwhile are not delivered)`,
    cause: error,
  }
}
