import { mkdirSync } from 'node:fs'
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path'
import { assertOptions, invalidArgument } from './errors.js'
import type { StringifyDrops, Trace, TraceOptions } from './trace.js'
import { traceEventText } from './trace-events.js'
import { appendWithinRootSync } from './within-root.js'

/** Options of {@link jsonlTrace}. */
export interface JsonlTraceOptions extends TraceOptions {
  /**
   * Record message lists in full. Default `false`: a message list becomes its roles and a short
   * digest per message, so traces stay small and private text stays out of logs.
   */
  full?: boolean
  /**
   * The directory the trace file must stay in; its own path is trusted, nothing below it is a
   * symlink the trace follows (a workspace's `.contextkit/` planted as a symlink is refused and
   * counted in `failures`). Give the workspace when the trace lives in it. Default: the trace
   * file's directory.
   */
  root?: string
}

/** A JSONL trace file. */
export interface JsonlTrace extends Trace {
  /** The file the events are appended to. */
  readonly path: string
  /** Events that could not be written (refused path, full disk, …). */
  readonly failures: number
  /**
   * Values left out of written events: cut at depth, cycles, a throwing `toJSON` or getter,
   * data that could not be read at all. The rest of each event is written.
   */
  readonly dropped: number
}

function inside(root: string, file: string): string | null {
  const rel = relative(root, file)
  if (rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return null
  return rel.split(sep).join('/')
}

/**
 * Append one JSON line per event (`{ts, seq, stage, data}`) to `path`, creating folders below
 * `root`. Every line goes through core's `appendWithinRootSync`: no symlink or hard link is
 * followed below `root`, and a line always starts on a fresh line (after a torn last line or a
 * failed write, the next event is readable). Writes are synchronous so lines stay in order and
 * survive a crash.
 *
 * `record` never throws: data that cannot be written as given (a cycle, 10,000 levels deep, a
 * throwing `toJSON`) is written as far as it goes with markers and counted in `dropped`; an
 * event that cannot be written at all is counted in `failures`.
 *
 * Throws a `ValidationError` when `path` is not a string or lies outside `options.root`.
 */
export function jsonlTrace(path: string, options: JsonlTraceOptions = {}): JsonlTrace {
  if (typeof path !== 'string' || path.length === 0) {
    invalidArgument('jsonlTrace', 'path', 'a non-empty file path', path)
  }
  assertOptions(options, 'jsonlTrace', 'options')
  const file = resolve(path)
  const root = resolve(options?.root ?? dirname(file))
  const rel = inside(root, file)
  if (rel === null) invalidArgument('jsonlTrace', 'options.root', `a directory holding ${file}`)
  const now = options.now ?? Date.now
  let seq = 0
  let failures = 0
  const drops: StringifyDrops = { count: 0 }
  let rootReady = false
  return {
    path,
    get failures() {
      return failures
    },
    get dropped() {
      return drops.count
    },
    record(stage, data = {}) {
      const line = traceEventText(stage, data, seq++, { now, full: options.full === true, drops })
      try {
        if (!rootReady) {
          mkdirSync(root, { recursive: true })
          rootReady = true
        }
        appendWithinRootSync(root, rel, `${line}\n`)
      } catch {
        failures++
      }
    },
  }
}
