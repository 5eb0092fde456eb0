// A generator of session logs as JSONL lines (header, user turns with tool results, replies
// with tool calls, approvals, compactions naming kept or unknown ids, custom entries, corrupt and
// blank lines), for the properties of a session's tail: store-files reads the tail of the bytes,
// agent-loop resumes from it. Entries are plain objects shaped as core's `SessionEntry` (typed
// here without importing core, which the repository root does not install).
import fc from 'fast-check'

/** The header line of every generated session (core's `sessionHeader('s', new Date(0))`). */
const HEADER = { type: 'session', version: 1, id: 's', createdAt: '1970-01-01T00:00:00.000Z' }

/** A content block of a generated message. */
type Block = Record<string, unknown>

const TEXTS = ['hi', 'é', '日本語のテキスト', '🙂 emoji 🙂', 'x'.repeat(40), 'a\u2028b', '']

/** One generated entry, before ids are assigned. */
export type SessionStep =
  | { kind: 'user'; text: string; results: number }
  | { kind: 'reply'; text: string; calls: number }
  | { kind: 'approval'; call: number; status: 'requested' | 'approved' | 'denied' }
  | { kind: 'compaction'; keep: number }
  | { kind: 'custom' }
  | { kind: 'corrupt'; text: string }
  | { kind: 'blank' }

export const sessionStep: fc.Arbitrary<SessionStep> = fc.oneof(
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
export function sessionLines(steps: readonly SessionStep[], reuseIds: boolean): string[] {
  const lines = [JSON.stringify(HEADER)]
  const ids: string[] = []
  let callSeq = 0
  let lastCalls: string[] = []
  steps.forEach((s, n) => {
    const id = reuseIds && n % 7 === 6 ? `e${n - 3}` : `e${n}`
    const base = { id, parentId: ids.at(-1) ?? null, ts: '2026-01-01T00:00:00.000Z' }
    let entry: Record<string, unknown> | undefined
    if (s.kind === 'user') {
      const content: Block[] = lastCalls.slice(0, s.results).map((c) => ({
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
      const content: Block[] = [
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
