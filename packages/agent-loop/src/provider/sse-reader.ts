import { createParser, type EventSourceMessage, type ParseError } from 'eventsource-parser'

/** One item of an SSE body: an event's `data`, or a line the parser could not read. */
export type SseItem = { kind: 'data'; data: string } | { kind: 'invalid'; line: string }

/**
 * The events of a `text/event-stream` body, read with `eventsource-parser` (the SSE parser the
 * Vercel AI SDK uses): `data:` lines joined per event, comments (`:`) and `event:`/`id:`/`retry:`
 * fields handled as the spec says, `\r\n` tolerated, chunks split anywhere (inside a line or a
 * UTF-8 character). A line with an unknown field is reported as `invalid` rather than skipped.
 */
export class SseReader {
  readonly #queue: SseItem[] = []
  readonly #decoder = new TextDecoder()
  readonly #parser = createParser({
    onEvent: (event: EventSourceMessage) => this.#queue.push({ kind: 'data', data: event.data }),
    onError: (error: ParseError) => {
      if (error.type === 'unknown-field') {
        this.#queue.push({ kind: 'invalid', line: error.line ?? `${error.field}: ${error.value}` })
      }
    },
  })

  /** Feed raw bytes; returns the items they completed. */
  push(bytes: Uint8Array): SseItem[] {
    this.#parser.feed(this.#decoder.decode(bytes, { stream: true }))
    return this.#queue.splice(0)
  }

  /** End of the body: an unterminated last event is still delivered. */
  end(): SseItem[] {
    const rest = this.#decoder.decode()
    if (rest) this.#parser.feed(rest)
    this.#parser.reset({ consume: true })
    return this.#queue.splice(0)
  }
}
