import { createHash } from 'node:crypto'
import { appendFileSync, mkdirSync } from 'node:fs'
import { dirname } from 'node:path'

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

/** Options of {@link memoryTrace} and {@link jsonlTrace}. */
export interface TraceOptions {
  /** Clock, injectable for tests. Default `Date.now`. */
  now?: () => number
}

/** A trace that discards everything. */
export const noopTrace: Trace = Object.freeze({ record(): void {} })

/** Keep events in memory. Data is recorded as given (not copied). */
export function memoryTrace(options: TraceOptions = {}): MemoryTrace {
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

/** Options of {@link jsonlTrace}. */
export interface JsonlTraceOptions extends TraceOptions {
  /**
   * Record message lists in full. Default `false`: a message list becomes its roles and a short
   * digest per message, so traces stay small and private text stays out of logs.
   */
  full?: boolean
}

/** A JSONL trace file; `failures` counts events that could not be written. */
export interface JsonlTrace extends Trace {
  readonly path: string
  readonly failures: number
}

/**
 * Append one JSON line per event (`{ts, seq, stage, data}`) to `path`, creating parent folders.
 * Writes are synchronous so lines stay in order and survive a crash; a write that fails is
 * counted in `failures` and never thrown.
 */
export function jsonlTrace(path: string, options: JsonlTraceOptions = {}): JsonlTrace {
  const now = options.now ?? Date.now
  let seq = 0
  let failures = 0
  let dirReady = false
  return {
    path,
    get failures() {
      return failures
    },
    record(stage, data = {}) {
      const event: TraceEvent = {
        ts: new Date(now()).toISOString(),
        seq: seq++,
        stage,
        data: options.full ? data : (summarize(data) as Record<string, unknown>),
      }
      try {
        if (!dirReady) {
          mkdirSync(dirname(path), { recursive: true })
          dirReady = true
        }
        appendFileSync(path, `${safeStringify(event)}\n`)
      } catch {
        failures++
      }
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

/** Short, stable digest of any JSON-able value. */
export function digest(value: unknown): string {
  return createHash('sha256')
    .update(typeof value === 'string' ? value : safeStringify(value))
    .digest('hex')
    .slice(0, 12)
}

function summarize(value: unknown, depth = 0): unknown {
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

function safeStringify(value: unknown): string {
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
