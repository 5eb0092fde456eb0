import { resolve } from 'node:path'
import { assertSessionId, assertString, type TraceReader } from '@contextkit/core'
import { parseTraceEvent } from '@contextkit/core/store'
import { backwardLines, forwardLines, openJsonl, sizeOf } from './jsonl-file.js'

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
          const event = parseTraceEvent(line)
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
          const event = parseTraceEvent(line)
          return event ? onEvent(event) : true
        })
      } finally {
        await handle.close().catch(() => {})
      }
    },
  }
}
