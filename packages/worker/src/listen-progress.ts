import { ProgressListenError } from './errors.js'
import { KeptListen } from './listen-connection.js'
import {
  PROGRESS_WARNINGS,
  type ProgressListenerOptions,
  type ProgressSubscriber,
  type ProgressWarning,
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

/** The longest part of a malformed payload a warning quotes. */
const PAYLOAD_SHOWN = 1_000

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
  const connection = new KeptListen(o, (payload) => {
    const notice = parseNotice(payload, o.onWarning)
    if (notice) deliver(notice, subscribers, o.onWarning)
  })
  try {
    await connection.start()
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
      subscribers.clear()
      await connection.stop()
    },
  }
}

/** Hand `notice` to every subscriber; one that throws is reported and the others still called. */
function deliver(
  notice: ProgressNotice,
  subscribers: ReadonlySet<ProgressSubscriber>,
  warn: (w: ProgressWarning) => void,
): void {
  for (const subscriber of [...subscribers]) {
    try {
      subscriber(notice)
    } catch (error) {
      warn({
        code: PROGRESS_WARNINGS.subscriberFailed,
        message: `a progress subscriber threw: ${error instanceof Error ? error.message : String(error)}`,
        cause: error,
      })
    }
  }
}
