/**
 * Test-only helpers shared by the stream-parser tests (not exported from the package).
 */
import type { StreamEvent, StreamParser } from './types.js'

/** Merge adjacent deltas of the same type: the normal form the chunking property compares. */
export function mergeDeltas(events: readonly StreamEvent[]): StreamEvent[] {
  const out: StreamEvent[] = []
  for (const e of events) {
    const last = out[out.length - 1]
    if (last && (e.type === 'text-delta' || e.type === 'thinking-delta') && last.type === e.type) {
      out[out.length - 1] = { type: e.type, text: last.text + e.text }
    } else out.push(structuredClone(e))
  }
  return out
}

/** Feed `chunks` to `parser`, flush, and return the merged events. */
export function parseAll(parser: StreamParser, chunks: readonly string[]): StreamEvent[] {
  const events: StreamEvent[] = []
  for (const c of chunks) events.push(...parser.processChunk(c))
  events.push(...parser.flush())
  return mergeDeltas(events)
}
