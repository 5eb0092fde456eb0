import { sha256 } from '@noble/hashes/sha2.js'
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js'
import { assertOptions, assertString } from './errors.js'
import { textMemo } from './text-memo.js'

/** An event sink for what happens during a run. Recording never throws. */
export interface Trace {
  /** Record one event: the stage that produced it and its data (default `{}`). */
  record(stage: string, data?: Record<string, unknown>): void
}

/** One recorded event. */
export interface TraceEvent {
  /** ISO timestamp. */
  ts: string
  /** 0-based sequence number within the trace. */
  seq: number
  /** The step that produced the event (`'prepare'`, `'preload.files'`, …). */
  stage: string
  /** What the step reports, JSON-serialisable. */
  data: Record<string, unknown>
}

/** A trace that keeps its events in memory (`events`), for tests and inspection. */
export interface MemoryTrace extends Trace {
  /** Every event recorded so far, in order. */
  readonly events: TraceEvent[]
  /** Events of one stage. */
  byStage(stage: string): TraceEvent[]
}

/** Options of {@link memoryTrace} and `jsonlTrace` (`@contextkit/core/node`). */
export interface TraceOptions {
  /** Clock, injectable for tests. Default `Date.now`. */
  now?: () => number
}

/** A trace that discards everything. */
export const noopTrace: Trace = Object.freeze({ record(): void {} })

/** Keep events in memory. Data is recorded as given (not copied). */
export function memoryTrace(options: TraceOptions = {}): MemoryTrace {
  assertOptions(options, 'memoryTrace', 'options')
  const now = options.now ?? Date.now
  const events: TraceEvent[] = []
  return {
    events,
    record(stage, data = {}) {
      events.push({ ts: new Date(now()).toISOString(), seq: events.length, stage, data })
    },
    byStage(stage) {
      return events.filter((e) => e.stage === stage)
    },
  }
}

function isMessageLike(value: unknown): value is { role: string; content: unknown } {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { role?: unknown }).role === 'string' &&
    'content' in value
  )
}

/**
 * Short, stable digest of any JSON-able value: the first 12 hex digits of the SHA-256 of the
 * string (UTF-8) or of its JSON. Synchronous and free of Node APIs (`@noble/hashes`), so it runs
 * in browsers and edge runtimes too.
 */
export function digest(value: unknown): string {
  return digestOfText(typeof value === 'string' ? value : (safeStringify(value) ?? typeof value))
}

/**
 * The digest of a text, remembered by content for texts of 128 characters or more (a section,
 * a file, a tool list digested again on every model call).
 */
const digestOfText = textMemo((text: string) => sha256Hex(text).slice(0, 12), {
  minChars: 128,
  maxEntries: 4096,
  maxChars: 8 * 1024 * 1024,
})

/**
 * The SHA-256 of a string (UTF-8), as 64 hex digits: the same as `node:crypto`'s
 * `createHash('sha256').update(text).digest('hex')`, synchronous and free of Node APIs
 * (`@noble/hashes`). For cache keys and content addresses in pure code.
 */
export function sha256Hex(text: string): string {
  assertString(text, 'sha256Hex', 'text')
  return bytesToHex(sha256(utf8ToBytes(text)))
}

/**
 * What a trace file records for `data` when not in full mode: message lists become their roles
 * and digests, a message its role and digest. Internal (used by `jsonlTrace`).
 */
export function summarize(value: unknown, depth = 0): unknown {
  if (depth > 6) return '[depth]'
  try {
    return summarizeOne(value, depth)
  } catch (error) {
    return `[unserializable: ${error instanceof Error ? error.message : 'unknown error'}]`
  }
}

function summarizeOne(value: unknown, depth: number): unknown {
  if (Array.isArray(value)) {
    if (value.length > 0 && value.every(isMessageLike)) {
      return {
        messages: value.length,
        roles: value.map((m) => m.role),
        digests: value.map((m) => digest(m.content)),
      }
    }
    return value.map((v) => summarize(v, depth + 1))
  }
  if (isMessageLike(value)) return { role: value.role, digest: digest(value.content) }
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) setOwn(out, k, summarize(v, depth + 1))
    return out
  }
  return value
}

/**
 * `out[key] = value` as an own property: a key `__proto__` (a JSON object may have one, and
 * `JSON.parse` makes it an own property) is data to copy, not the copy's prototype to set.
 */
function setOwn(out: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true })
  } else out[key] = value
}

/** How deep {@link safeStringify} goes before writing `"[depth]"` in place of a value. */
export const SAFE_STRINGIFY_MAX_DEPTH = 64

/** Counts what {@link safeStringify} could not write as given. */
export interface StringifyDrops {
  /** Values replaced by a marker: `[depth]`, `[circular]`, `[unserializable: …]`. */
  count: number
}

/**
 * `JSON.stringify` that never throws and always returns a string: bigints as strings, errors as
 * name and message, a cycle (an object inside itself) as `"[circular]"` — an object merely
 * referenced twice is written twice —, values deeper than {@link SAFE_STRINGIFY_MAX_DEPTH} as
 * `"[depth]"`, a throwing `toJSON` or getter as `"[unserializable: …]"`; `undefined` alone is
 * `null`. Each replacement is counted in `drops` when given. Internal (traces, digests).
 */
export function safeStringify(value: unknown, drops: StringifyDrops = { count: 0 }): string {
  try {
    return JSON.stringify(jsonSafe(value, '', new Set(), 0, drops)) ?? 'null'
  } catch (error) {
    drops.count++
    return JSON.stringify(`[unserializable: ${String((error as Error)?.message ?? error)}]`)
  }
}

function unserializable(error: unknown, drops: StringifyDrops): string {
  drops.count++
  let why = 'unknown error'
  try {
    why = error instanceof Error ? error.message : String(error)
  } catch {
    // a thrown value that cannot even be printed
  }
  return `[unserializable: ${why}]`
}

/** A copy of `value` that `JSON.stringify` writes without throwing or recursing too deep. */
function jsonSafe(
  input: unknown,
  key: string,
  ancestors: Set<object>,
  depth: number,
  drops: StringifyDrops,
): unknown {
  let value = input
  try {
    if (typeof value === 'object' && value !== null && !(value instanceof Error)) {
      const toJSON = (value as { toJSON?: unknown }).toJSON
      if (typeof toJSON === 'function') value = toJSON.call(value, key)
    }
  } catch (error) {
    return unserializable(error, drops)
  }
  if (typeof value === 'bigint') return value.toString()
  if (typeof value !== 'object' || value === null) return value
  if (value instanceof Error) return { name: value.name, message: value.message }
  if (ancestors.has(value)) {
    drops.count++
    return '[circular]'
  }
  if (depth >= SAFE_STRINGIFY_MAX_DEPTH) {
    drops.count++
    return '[depth]'
  }
  ancestors.add(value)
  try {
    if (Array.isArray(value)) {
      return value.map((item, i) => jsonSafe(item, String(i), ancestors, depth + 1, drops) ?? null)
    }
    const out: Record<string, unknown> = {}
    for (const k of Object.keys(value)) {
      let item: unknown
      try {
        item = (value as Record<string, unknown>)[k]
      } catch (error) {
        item = unserializable(error, drops)
      }
      const safe = jsonSafe(item, k, ancestors, depth + 1, drops)
      if (safe !== undefined && typeof safe !== 'function' && typeof safe !== 'symbol')
        setOwn(out, k, safe)
    }
    return out
  } catch (error) {
    return unserializable(error, drops)
  } finally {
    ancestors.delete(value)
  }
}
