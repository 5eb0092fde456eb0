import { appendFileSync, mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { assertOptions, assertString } from './errors.js'
import {
  safeStringify,
  summarize,
  type Trace,
  type TraceEvent,
  type TraceOptions,
} from './trace.js'

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
  assertString(path, 'jsonlTrace', 'path')
  assertOptions(options, 'jsonlTrace', 'options')
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
