/** How often a live stream looks for changes. */
export const POLL_MS = 250
/** A comment line this often keeps proxies and the browser from closing an idle stream. */
const HEARTBEAT_MS = 15_000

const encoder = new TextEncoder()

/** Live streams that are open, so closing the inspector ends them. */
export class LiveStreams {
  readonly #open = new Set<() => void>()

  /**
   * A server-sent events response: `event: ready` with the first marker at once, then an
   * `event: change` whenever `poll` returns another one, until the client goes or {@link close}
   * is called.
   */
  response(poll: () => Promise<string>, headers: Record<string, string>): Response {
    let timer: ReturnType<typeof setTimeout> | undefined
    let last: string | undefined
    let quiet = 0
    let stop = () => {}
    const stream = new ReadableStream<Uint8Array>({
      start: (controller) => {
        const end = () => {
          clearTimeout(timer)
          this.#open.delete(end)
          try {
            controller.close()
          } catch {
            // already closed
          }
        }
        stop = end
        this.#open.add(end)
        controller.enqueue(encoder.encode('retry: 1000\n\n'))
        const tick = async () => {
          try {
            const marker = await poll()
            quiet += POLL_MS
            if (marker !== last) {
              // the first marker is where the page starts from, not a change
              const event = last === undefined ? 'ready' : 'change'
              last = marker
              quiet = 0
              controller.enqueue(encoder.encode(`event: ${event}\ndata: ${marker}\n\n`))
            } else if (quiet >= HEARTBEAT_MS) {
              quiet = 0
              controller.enqueue(encoder.encode(': ping\n\n'))
            }
          } catch {
            // a failed look is tried again on the next tick
          }
          if (this.#open.has(end)) timer = setTimeout(tick, POLL_MS)
        }
        void tick()
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

  /** End every open stream. */
  close(): void {
    for (const end of [...this.#open]) end()
  }
}
