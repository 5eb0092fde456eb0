import { resolve } from 'node:path'
import { assertSessionId, assertString, type TraceEvent } from '@contextkit/core'
import { backwardLines, forwardLines, openJsonl, sizeOf } from './jsonl-file.js'

/**
 * Where the inspector reads a session's run traces from. `jsonlTraceDirectory(dir)` reads the
 * JSONL files core's `jsonlTrace` writes (one per session, `<dir>/<session id>.jsonl`); a
 * Postgres trace table can implement the same four methods. Positions are opaque numbers that
 * only grow as a trace grows (a byte offset, a sequence number).
 */
export interface TraceReader {
  /** Where the session's trace ends now (`0`: no trace). */
  end(sessionId: string): Promise<number>
  /**
   * Every event between `from` and `end`, in order; resolves to the position after the last one
   * read (a line still being written is left for later). With `stages`, only events of those
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

/** A trace line as an event, or `null` when it is not one (torn, hand-edited, another format). */
export function parseTraceLine(line: string): TraceEvent | null {
  if (line.trim() === '') return null
  let value: unknown
  try {
    value = JSON.parse(line)
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

/**
 * The stage of a trace line without decoding it (`jsonlTrace` writes `ts`, `seq`, then `stage`),
 * or `undefined` when it cannot tell (then the line is decoded).
 */
export function stageOfLine(line: string): string | undefined {
  const at = line.indexOf('"stage":"')
  if (at < 0 || at > 100) return undefined
  const end = line.indexOf('"', at + 9)
  return end < 0 ? undefined : line.slice(at + 9, end)
}

/**
 * The JSONL trace files in `dir`, one per session named `<session id>.jsonl` (what the examples'
 * runner writes with core's `jsonlTrace`). Files are opened through core's `openWithinRoot`, so a
 * symlink planted below `dir` is refused; ids are checked with core's session id rules.
 * `readBackward` reads from the end a block at a time: memory does not grow with the trace.
 */
export function jsonlTraceDirectory(dir: string): TraceReader {
  assertString(dir, 'jsonlTraceDirectory', 'dir')
  const root = resolve(dir)
  const rel = (id: string) => {
    assertSessionId(id, 'jsonlTraceDirectory')
    return `${id}.jsonl`
  }
  return {
    end: (id) => sizeOf(root, rel(id)),
    async readForward(id, from, end, onEvent, stages) {
      const handle = await openJsonl(root, rel(id))
      if (!handle) return from
      try {
        return await forwardLines(handle, from, end, (line) => {
          const stage = stages ? stageOfLine(line) : undefined
          if (stage !== undefined && !stages?.has(stage)) return
          const event = parseTraceLine(line)
          if (event) onEvent(event)
        })
      } finally {
        await handle.close().catch(() => {})
      }
    },
    async readBackward(id, end, onEvent) {
      const handle = await openJsonl(root, rel(id))
      if (!handle) return
      try {
        await backwardLines(handle, end, (line) => {
          const event = parseTraceLine(line)
          return event ? onEvent(event) : true
        })
      } finally {
        await handle.close().catch(() => {})
      }
    },
  }
}
