import { type Message, type SessionEntry, sessionHeader } from '@contextkit/core'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { applyCompaction } from './apply-compaction.js'
import { lastEntryId } from './entries.js'
import { parseSessionLines } from './lines.js'
import { runStateOf } from './run-state.js'
import { type ByteSource, readSessionTail } from './tail.js'

const TEXTS = ['hi', 'é', '日本語のテキスト', '🙂 emoji 🙂', 'x'.repeat(40), 'a\u2028b', '']

/** One generated entry, before ids are assigned. */
type Step =
  | { kind: 'user'; text: string; results: number }
  | { kind: 'reply'; text: string; calls: number }
  | { kind: 'approval'; call: number; status: 'requested' | 'approved' | 'denied' }
  | { kind: 'compaction'; keep: number }
  | { kind: 'custom' }
  | { kind: 'corrupt'; text: string }
  | { kind: 'blank' }

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('user' as const),
      text: fc.constantFrom(...TEXTS),
      results: fc.nat(2),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('reply' as const),
      text: fc.constantFrom(...TEXTS),
      calls: fc.nat(2),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('approval' as const),
      call: fc.nat(3),
      status: fc.constantFrom('requested' as const, 'approved' as const, 'denied' as const),
    }),
  },
  // keep: how many entries back the first kept id points (past the start: an unknown id)
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('compaction' as const),
      keep: fc.integer({ min: -2, max: 12 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('custom' as const) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('corrupt' as const),
      text: fc.constantFrom('{"type":', 'not json', '{"type":"message"}', '\uFEFF{}'),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('blank' as const) }) },
)

/** The lines of a generated session (header first), with ids reused now and then. */
function sessionLines(steps: readonly Step[], reuseIds: boolean): string[] {
  const lines = [JSON.stringify(sessionHeader('s', new Date(0)))]
  const ids: string[] = []
  let callSeq = 0
  let lastCalls: string[] = []
  steps.forEach((s, n) => {
    const id = reuseIds && n % 7 === 6 ? `e${n - 3}` : `e${n}`
    const base = { id, parentId: ids.at(-1) ?? null, ts: '2026-01-01T00:00:00.000Z' }
    let entry: SessionEntry | undefined
    if (s.kind === 'user') {
      const content: Message['content'] = lastCalls.slice(0, s.results).map((c) => ({
        type: 'tool_result',
        toolCallId: c,
        content: [{ type: 'text', text: s.text }],
        isError: false,
      }))
      if (content.length === 0) content.push({ type: 'text', text: s.text })
      entry = { type: 'message', ...base, message: { role: 'user', content } }
    } else if (s.kind === 'reply') {
      lastCalls = Array.from(
        { length: s.calls },
        () => `call_${reuseIds ? callSeq++ % 3 : callSeq++}`,
      )
      const content: Message['content'] = [
        { type: 'text', text: s.text },
        ...lastCalls.map((c) => ({
          type: 'tool_call' as const,
          id: c,
          name: 'read',
          input: { path: s.text },
        })),
      ]
      entry = {
        type: 'message',
        ...base,
        message: { role: 'assistant', content, stopReason: s.calls > 0 ? 'tool_use' : 'end_turn' },
      }
    } else if (s.kind === 'approval') {
      entry = {
        type: 'approval',
        ...base,
        toolCallId: `call_${s.call}`,
        tool: 'read',
        status: s.status,
        ...(s.status === 'denied' ? { reason: 'no' } : {}),
      }
    } else if (s.kind === 'compaction') {
      const kept = s.keep < 0 ? `e${n + 1}` : (ids.at(-1 - s.keep) ?? 'unknown')
      entry = { type: 'compaction', ...base, summary: `summary ${n} é`, firstKeptId: kept }
    } else if (s.kind === 'custom') {
      entry = { type: 'custom', ...base, customType: 'note', data: { n } }
    } else {
      lines.push(s.kind === 'corrupt' ? s.text : '   ')
      return
    }
    ids.push(id)
    lines.push(JSON.stringify(entry))
  })
  return lines
}

/** A byte source over `bytes` that hands out copies (a file read never shares memory). */
function memory(bytes: Uint8Array): ByteSource {
  return { size: bytes.length, read: async (pos, len) => bytes.slice(pos, pos + len) }
}

const countLines = (bytes: Uint8Array, end: number) => {
  let n = 1
  for (let i = 0; i < end; i++) if (bytes[i] === 0x0a) n++
  return n
}

describe('readSessionTail', () => {
  test('gives what a resume needs exactly as the applied full load does, for any session and block size', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { maxLength: 40 }),
        fc.record({
          reuseIds: fc.boolean(),
          crlf: fc.boolean(),
          torn: fc.nat(30),
          terminated: fc.boolean(),
        }),
        fc.integer({ min: 1, max: 300 }),
        async (steps, shape, blockSize) => {
          const lines = sessionLines(steps, shape.reuseIds)
          let text = lines.join(shape.crlf ? '\r\n' : '\n') + (shape.terminated ? '\n' : '')
          if (shape.torn > 0 && !shape.terminated)
            text = text.slice(0, Math.max(0, text.length - shape.torn))
          const bytes = new TextEncoder().encode(text)
          const full = parseSessionLines(bytes)
          const tail = await readSessionTail(memory(bytes), blockSize)

          expect(applyCompaction(tail.entries)).toEqual(applyCompaction(full.entries))
          expect(runStateOf(tail.entries)).toEqual(runStateOf(full.entries))
          expect(lastEntryId(tail.entries)).toBe(lastEntryId(full.entries))
          expect(tail.entries.some((e) => e.type === 'session')).toBe(
            full.entries.some((e) => e.type === 'session'),
          )
          expect(tail.tornTail).toBe(full.tornTail)
          // the header's line, then a suffix of the full load; warnings of the lines returned
          const fromLine = countLines(bytes, tail.start)
          const firstLine = bytes.subarray(0, Math.max(0, bytes.indexOf(0x0a)))
          const head = tail.whole ? [] : parseSessionLines(new Uint8Array([...firstLine, 0x0a]))
          const headCount = tail.whole ? 0 : (head as { entries: unknown[] }).entries.length
          const body = tail.entries.slice(headCount)
          expect(tail.entries.slice(0, headCount)).toEqual(full.entries.slice(0, headCount))
          expect(body).toEqual(full.entries.slice(full.entries.length - body.length))
          expect(tail.warnings).toEqual(
            full.warnings.filter((w) => w.line === 1 || (w.line ?? 0) >= fromLine),
          )
          if (tail.whole) expect(tail).toMatchObject(full)
        },
      ),
      { numRuns: 300 },
    )
  })
})
