// A trace event as stored text, and the reading side of stored traces: what `jsonlTrace`
// (`@contextkit/core/node`) and store-postgres' `postgresTrace` write, and what the inspector
// reads through a `TraceReader`. Pure: no Node built-ins.
import { safeStringify, summarize, type TraceEvent } from './trace.js'

/**
 * Where stored run traces are read from, one trace per session: the JSONL files of `jsonlTrace`
 * (the inspector's `jsonlTraceDirectory`) or a Postgres table (store-postgres'
 * `postgresTraceReader`). Positions are opaque numbers that only grow as a trace grows (a byte
 * offset, a row number); `0` is the start.
 */
export interface TraceReader {
  /** Where the session's trace ends now (`0`: no trace). */
  end(sessionId: string): Promise<number>
  /**
   * Every event between `from` and `end`, in order; resolves to the position after the last one
   * read (an event still being written is left for later). With `stages`, only events of those
   * stages are needed: a reader may skip the others without decoding them.
   */
  readForward(
    sessionId: string,
    from: number,
    end: number,
    onEvent: (event: TraceEvent) => void,
    stages?: ReadonlySet<string>,
  ): Promise<number>
  /** The events before `end`, newest first, until `onEvent` returns `false`. */
  readBackward(
    sessionId: string,
    end: number,
    onEvent: (event: TraceEvent) => boolean,
  ): Promise<void>
}

/** How {@link traceEventText} writes one event. */
export interface TraceEventTextOptions {
  /** Clock. Default `Date.now`. */
  now?: () => number
  /**
   * Record message lists in full. Default `false`: a message list becomes its roles and a short
   * digest per message (what trace files keep, so private text stays out of logs).
   */
  full?: boolean
  /** Counts values that could not be written as given (cycles, depth, throwing getters). */
  drops?: { count: number }
}

/**
 * One trace event as a line of JSON, `{"ts","seq","stage","data"}` in that order (readers find the
 * stage without decoding the rest). Never throws: what cannot be written as given is written as a
 * marker and counted in `options.drops`.
 */
export function traceEventText(
  stage: unknown,
  data: unknown,
  seq: number,
  options: TraceEventTextOptions = {},
): string {
  const opts = typeof options === 'object' && options !== null ? options : {}
  const drops = typeof opts.drops === 'object' && opts.drops !== null ? opts.drops : { count: 0 }
  let ts: string
  try {
    ts = new Date((opts.now ?? Date.now)()).toISOString()
  } catch {
    ts = new Date().toISOString()
  }
  let body: unknown
  try {
    body = opts.full === true ? data : summarize(data)
  } catch {
    drops.count++
    body = '[unreadable]'
  }
  const event: TraceEvent = {
    ts,
    seq: Number.isSafeInteger(seq) ? seq : 0,
    stage: typeof stage === 'string' ? stage : safeStringify(stage, drops),
    data: body as Record<string, unknown>,
  }
  return safeStringify(event, drops)
}

/**
 * A stored trace event read back, or `null` when the text is not one (torn, hand-edited, another
 * format, not a string). Missing `ts`/`seq` read as `''`/`0`; `data` that is not an object
 * reads as `{}`.
 */
export function parseTraceEvent(text: string): TraceEvent | null {
  if (typeof text !== 'string' || text.trim() === '') return null
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return null
  }
  if (typeof value !== 'object' || value === null) return null
  const e = value as Record<string, unknown>
  if (typeof e.stage !== 'string') return null
  const data =
    typeof e.data === 'object' && e.data !== null && !Array.isArray(e.data)
      ? (e.data as Record<string, unknown>)
      : {}
  return {
    ts: typeof e.ts === 'string' ? e.ts : '',
    seq: typeof e.seq === 'number' ? e.seq : 0,
    stage: e.stage,
    data,
  }
}
