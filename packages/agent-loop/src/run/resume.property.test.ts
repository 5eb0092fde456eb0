// Property: whatever state a crash or a pause left the log in, a resumed run answers every call
// of the last reply exactly once (unless it still waits for a person), runs again only
// idempotent calls and approved ones, and never runs a call that waits or was denied.
import {
  type ApprovalStatus,
  type Message,
  type SessionEntry,
  type ToolCallBlock,
  textMessage,
} from '@contextkit/core'
import { sessionHeader } from '@contextkit/core/store'
import fc from 'fast-check'
import { expect, test } from 'vitest'
import { z } from 'zod'
import { memorySessionStore } from '../test-support.js'
import { scriptedProvider } from '../testing/scripted-provider.js'
import { defineTool } from '../tools/define-tool.js'
import type { ApprovalAnswer } from './option-checks.js'
import { runAgent } from './run-agent.js'

type Kind = 'idem' | 'plain' | 'ask'

interface CallSpec {
  kind: Kind
  answered: boolean
  /** The approval entries of an `ask` call (in order). */
  approval: ApprovalStatus[]
  /** What the resuming run says for a call still waiting. */
  decision: 'approve' | 'deny' | 'none'
}

const callSpec = fc
  .record({
    kind: fc.constantFrom<Kind>('idem', 'plain', 'ask'),
    answered: fc.boolean(),
    approval: fc.constantFrom<ApprovalStatus[]>(
      [],
      ['requested'],
      ['requested', 'approved'],
      ['requested', 'denied'],
    ),
    decision: fc.constantFrom('approve', 'deny', 'none') as fc.Arbitrary<CallSpec['decision']>,
  })
  // only a tool that asks, and a call without a result, has approval entries
  .map((s): CallSpec => (s.kind === 'ask' && !s.answered ? s : { ...s, approval: [] }))

function logOf(id: string, specs: CallSpec[]): { entries: SessionEntry[]; calls: ToolCallBlock[] } {
  const ts = new Date(0).toISOString()
  const calls: ToolCallBlock[] = specs.map((s, n) => ({
    type: 'tool_call',
    id: `call_${n}`,
    name: s.kind,
    input: { n },
  }))
  const reply: Message = {
    role: 'assistant',
    content: [{ type: 'text', text: 'Working.' }, ...calls],
  }
  const entries: SessionEntry[] = [
    sessionHeader(id, new Date(0)),
    { type: 'message', id: 'u', parentId: null, ts, message: textMessage('user', 'Go.') },
    { type: 'message', id: 'r', parentId: 'u', ts, message: reply },
  ]
  specs.forEach((s, n) => {
    const call = calls[n] as ToolCallBlock
    for (const [k, status] of s.approval.entries()) {
      entries.push({
        type: 'approval',
        id: `a${n}-${k}`,
        parentId: null,
        ts,
        toolCallId: call.id,
        tool: call.name,
        status,
        ...(status === 'denied' ? { reason: `no ${n}` } : {}),
      })
    }
  })
  const answered = calls.filter((_, n) => specs[n]?.answered)
  if (answered.length > 0) {
    const results: Message = {
      role: 'user',
      content: answered.map((c) => ({
        type: 'tool_result',
        toolCallId: c.id,
        content: [{ type: 'text', text: 'earlier result' }],
        isError: false,
      })),
    }
    entries.push({ type: 'message', id: 'res', parentId: 'r', ts, message: results })
  }
  return { entries, calls }
}

test('a resumed run answers each call once and runs only what it may', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(callSpec, { minLength: 1, maxLength: 5 }),
      fc.boolean(),
      async (specs, newMessage) => {
        const ran: string[] = []
        const tool = (name: Kind) =>
          defineTool({
            name,
            description: name,
            input: z.object({ n: z.number() }),
            ...(name === 'idem' ? { idempotent: true } : {}),
            ...(name === 'ask' ? { approval: 'ask' as const } : {}),
            execute: (_input, { toolCallId }) => {
              ran.push(toolCallId)
              return 'ran now'
            },
          })
        const store = memorySessionStore()
        const { entries, calls } = logOf('p', specs)
        store.data.set('p', entries)
        const approvals: Record<string, ApprovalAnswer> = {}
        specs.forEach((s, n) => {
          if (s.decision === 'approve') approvals[`call_${n}`] = { approve: true }
          if (s.decision === 'deny') approvals[`call_${n}`] = { approve: false, reason: `why ${n}` }
        })
        const result = await runAgent({
          provider: scriptedProvider(['Done.']),
          model: 'claude-haiku-4-5',
          tools: [tool('idem'), tool('plain'), tool('ask')],
          session: { store, id: 'p' },
          messages: newMessage ? [textMessage('user', 'Something else.')] : [],
          resume: { approvals },
        }).result
        // what may run: an unanswered idempotent call with no decision against it; a call that
        // waits (only `requested`) and is approved now; an approved one (crash after the
        // decision) only when idempotent — never a waiting, denied or answered call
        const waiting = (s: CallSpec) =>
          s.kind === 'ask' && !s.answered && s.approval.at(-1) === 'requested'
        const mayRun = specs.flatMap((s, n) => {
          if (s.answered) return []
          if (waiting(s)) return s.decision === 'approve' ? [`call_${n}`] : []
          if (s.approval.at(-1) === 'denied') return []
          return s.kind === 'idem' ? [`call_${n}`] : []
        })
        expect(ran.sort()).toEqual(mayRun.sort())
        const stillWaiting = specs.some((s) => waiting(s) && s.decision === 'none') && !newMessage
        expect(result.stopReason).toBe(stillWaiting ? 'awaiting_approval' : 'end_turn')
        const counts = new Map<string, number>()
        for (const e of store.data.get('p') ?? []) {
          if (e.type !== 'message') continue
          for (const b of e.message.content) {
            if (b.type === 'tool_result')
              counts.set(b.toolCallId, (counts.get(b.toolCallId) ?? 0) + 1)
          }
        }
        for (const [n, call] of calls.entries()) {
          const spec = specs[n] as CallSpec
          const expected = stillWaiting && waiting(spec) && spec.decision === 'none' ? 0 : 1
          expect(counts.get(call.id) ?? 0).toBe(expected)
        }
      },
    ),
    { numRuns: 150 },
  )
}, 120_000)
