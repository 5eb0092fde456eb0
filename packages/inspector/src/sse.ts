import { InspectorChangesError } from './errors.js'
import type { InspectorChanges } from './options.js'

/** How often a live stream looks for changes when nothing tells it of them (`pollIntervalMs`). */
export const POLL_MS = 250
/** How often it looks when `changes` wakes it: polling then only catches what the feed missed. */
export const POLL_WITH_CHANGES_MS = 5_000
/** A comment line this often keeps proxies and the browser from closing an idle stream. */
const HEARTBEAT_MS = 15_000

const encoder = new TextEncoder()

/** One open stream: which session it follows (none: the list) and how to make it look now. */
interface Watcher {
  sessionId: string | undefined
  wake(): void
}

/** How the live streams learn of changes. */
export interface LiveStreamOptions {
  /** Milliseconds between two looks at the store. */
  pollMs: number
  /** The app's change feed, subscribed once here and unsubscribed by {@link LiveStreams.close}. */
  changes?: InspectorChanges | undefined
}

/**
 * Live streams that are open, so closing the inspector ends them; each looks at the store every
 * `pollMs`, and at once when the change feed names its session (or no session).
 */
export class LiveStreams {
  readonly #open = new Set<() => void>()
  readonly #watchers = new Set<Watcher>()
  readonly #pollMs: number
  #unsubscribe: (() => void) | undefined

  /** @throws InspectorChangesError when `changes` throws or returns no unsubscribe function. */
  constructor(options: LiveStreamOptions) {
    this.#pollMs = options.pollMs
    if (options.changes) this.#unsubscribe = subscribe(options.changes, (id) => this.#changed(id))
  }

  /** Wake the streams that follow `sessionId`, and the list's; every stream when no id is given. */
  #changed(sessionId: unknown): void {
    const id = typeof sessionId === 'string' ? sessionId : undefined
    for (const w of [...this.#watchers]) {
      if (id === undefined || w.sessionId === undefined || w.sessionId === id) w.wake()
    }
  }

  /**
   * A server-sent events response: `event: ready` with the first marker at once, then an
   * `event: change` whenever `poll` returns another one, until the client goes or {@link close}
   * is called. `sessionId` is the session the stream follows (none for the session list).
   */
  response(
    poll: () => Promise<string>,
    headers: Record<string, string>,
    sessionId?: string,
  ): Response {
    let stop = () => {}
    const stream = new ReadableStream<Uint8Array>({
      start: (controller) => {
        stop = this.#watch(controller, poll, sessionId)
      },
      cancel: () => stop(),
    })
    return new Response(stream, {
      status: 200,
      headers: {
        ...headers,
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
      },
    })
  }

  /** Start one stream's looks; returns its end. */
  #watch(
    controller: ReadableStreamDefaultController<Uint8Array>,
    poll: () => Promise<string>,
    sessionId: string | undefined,
  ): () => void {
    let timer: ReturnType<typeof setTimeout> | undefined
    let last: string | undefined
    let sent = Date.now()
    let looking = false
    let again = false
    const send = (text: string) => {
      sent = Date.now()
      controller.enqueue(encoder.encode(text))
    }
    const heartbeat = setInterval(() => {
      if (Date.now() - sent >= HEARTBEAT_MS) send(': ping\n\n')
    }, HEARTBEAT_MS)
    const watcher: Watcher = { sessionId, wake: () => void look() }
    const end = () => {
      clearTimeout(timer)
      clearInterval(heartbeat)
      this.#open.delete(end)
      this.#watchers.delete(watcher)
      try {
        controller.close()
      } catch {
        // already closed
      }
    }
    // one look at a time; a wake during a look looks once more right after it
    const look = async () => {
      if (looking) {
        again = true
        return
      }
      looking = true
      clearTimeout(timer)
      do {
        again = false
        try {
          const marker = await poll()
          if (marker !== last && this.#open.has(end)) {
            // the first marker is where the page starts from, not a change
            const event = last === undefined ? 'ready' : 'change'
            last = marker
            send(`event: ${event}\ndata: ${marker}\n\n`)
          }
        } catch {
          // a failed look is tried again on the next one
        }
      } while (again && this.#open.has(end))
      looking = false
      if (this.#open.has(end)) timer = setTimeout(look, this.#pollMs)
    }
    this.#open.add(end)
    this.#watchers.add(watcher)
    send('retry: 1000\n\n')
    void look()
    return end
  }

  /** End every open stream and stop listening to the change feed. */
  close(): void {
    this.#unsubscribe?.()
    this.#unsubscribe = undefined
    for (const end of [...this.#open]) end()
  }
}

/** Subscribe to the app's feed, checking what it gives back. */
function subscribe(changes: InspectorChanges, onChange: (id?: string) => void): () => void {
  let unsubscribe: unknown
  try {
    unsubscribe = changes(onChange)
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error)
    throw new InspectorChangesError(
      `The inspector's changes option threw when subscribed: ${reason}`,
      {
        cause: error,
      },
    )
  }
  if (typeof unsubscribe !== 'function') {
    throw new InspectorChangesError(
      `The inspector's changes option must return its unsubscribe function, got ${unsubscribe === null ? 'null' : typeof unsubscribe}`,
    )
  }
  let done = false
  return () => {
    if (done) return
    done = true
    try {
      ;(unsubscribe as () => void)()
    } catch {
      // the app's unsubscribe failing leaves nothing of ours open
    }
  }
}
