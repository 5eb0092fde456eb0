import { sha256 } from '@noble/hashes/sha2.js'
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js'
import { assertOptions, assertString } from './errors.js'

/** An event sink for what happens during a run. Recording never throws. */
export interface Trace {
  record(stage: string, data?: Record<string, unknown>): void
}

/** One recorded event. */
export interface TraceEvent {
  /** ISO timestamp. */
  ts: string
  /** 0-based sequence number within the trace. */
  seq: number
  stage: string
  data: Record<string, unknown>
}

/** A trace that keeps its events in memory (`events`), for tests and inspection. */
export interface MemoryTrace extends Trace {
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
  return sha256Hex(
    typeof value === 'string' ? value : (safeStringify(value) ?? typeof value),
  ).slice(0, 12)
}

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
    for (const [k, v] of Object.entries(value)) out[k] = summarize(v, depth + 1)
    return out
  }
  return value
}

/** `JSON.stringify` that never throws: bigints as strings, errors as name and message, cycles marked. */
export function safeStringify(value: unknown): string {
  const seen = new WeakSet<object>()
  return JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v === 'bigint') return v.toString()
    if (v instanceof Error) return { name: v.name, message: v.message }
    if (typeof v === 'object' && v !== null) {
      if (seen.has(v)) return '[circular]'
      seen.add(v)
    }
    return v
  })
}
