// Durable runs end to end: runAgent → anthropicProvider → the real SDK → testkit over 127.0.0.1,
// with the session log as the only run state.
import {
  type Message,
  type SessionEntry,
  sessionMessages,
  type ToolCallBlock,
  textMessage,
  ValidationError,
} from '@contextkit/core'
import { sessionHeader } from '@contextkit/core/store'
import type { ScriptRequest } from '@contextkit/testkit'
import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import type { AgentEvent } from '../events/events.js'
import { AGENT_LOOP_WARNINGS } from '../events/warnings.js'
import { runAgent } from '../run/run-agent.js'
import { collect, emulated, memorySessionStore } from '../test-support.js'
import { type ApprovalPolicy, defineTool } from '../tools/define-tool.js'

type Store = ReturnType<typeof memorySessionStore>

/** Tools that count their runs: `read` (idempotent), `send` (not), `write` (per `approval`). */
function tools(approval: ApprovalPolicy<{ path: string }> = 'ask') {
  const ran = { read: 0, send: 0, write: 0 }
  const read = defineTool({
    name: 'read',
    description: 'Read a file',
    input: z.object({ path: z.string() }),
    idempotent: true,
    execute: ({ path }) => {
      ran.read++
      return `contents of ${path}`
    },
  })
  const send = defineTool({
    name: 'send',
    description: 'Send an email',
    input: z.object({ to: z.string() }),
    execute: ({ to }) => {
      ran.send++
      return `sent to ${to}`
    },
  })
  const write = defineTool({
    name: 'write',
    description: 'Write a file',
    input: z.object({ path: z.string() }),
    approval,
    execute: ({ path }) => {
      ran.write++
      return `wrote ${path}`
    },
  })
  return { ran, list: [read, send, write] }
}

/** Every tool call of the log, with how many results answer it. */
function resultCounts(entries: readonly SessionEntry[]): Map<string, number> {
  const counts = new Map<string, number>()
  for (const m of sessionMessages(entries)) {
    for (const b of m.content) {
      if (b.type === 'tool_call') counts.set(b.id, counts.get(b.id) ?? 0)
      if (b.type === 'tool_result') counts.set(b.toolCallId, (counts.get(b.toolCallId) ?? 0) + 1)
    }
  }
  return counts
}

/** Tool results the model was sent in one request, by call id. */
function resultsSent(req: ScriptRequest): Map<string, { text: string; isError: boolean }> {
  const out = new Map<string, { text: string; isError: boolean }>()
  for (const m of req.messages) {
    for (const b of m.content) {
      if (b.type !== 'tool_result') continue
      const c = b.content
      const text = typeof c === 'string' ? c : JSON.stringify(c)
      out.set(String(b.tool_use_id), { text, isError: b.is_error === true })
    }
  }
  return out
}

const twoCalls = {
  text: 'Reading, then writing.',
  toolUse: [
    { id: 'toolu_read', name: 'read', input: { path: 'a.txt' } },
    { id: 'toolu_write', name: 'write', input: { path: 'b.txt' } },
  ],
}

async function pausedRun(store: Store, approval?: ApprovalPolicy<{ path: string }>) {
  const t = tools(approval)
  const seen: ScriptRequest[] = []
  const { provider } = await emulated((req) => {
    seen.push(req)
    return seen.length === 1 ? twoCalls : 'Done.'
  })
  const base = { provider, model: 'claude-haiku-4-5', tools: t.list, session: { store, id: 's1' } }
  const run = runAgent({ ...base, messages: [textMessage('user', 'Copy a.txt to b.txt.')] })
  const events = await collect(run.events)
  return { t, seen, base, result: await run.result, events }
}

describe('write-ahead steps', () => {
  test('when a tool runs, the user message and the reply that called it are already saved', async () => {
    const store = memorySessionStore()
    let seenByTool: string[] = []
    const probe = defineTool({
      name: 'probe',
      description: 'Looks at the log',
      input: z.object({}),
      execute: async () => {
        const { entries } = await store.load('w1')
        seenByTool = sessionMessages(entries).map((m) => `${m.role}:${m.content[0]?.type}`)
        return 'ok'
      },
    })
    const { provider } = await emulated([
      { text: 'Probing.', toolUse: { name: 'probe', input: {} } },
      'Done.',
    ])
    const result = await runAgent({
      provider,
      model: 'claude-haiku-4-5',
      tools: [probe],
      messages: [textMessage('user', 'Go.')],
      session: { store, id: 'w1' },
    }).result
    expect(result.stopReason).toBe('end_turn')
    expect(seenByTool).toEqual(['user:text', 'assistant:text'])
    const roles = sessionMessages(store.data.get('w1') ?? []).map((m) => m.role)
    expect(roles).toEqual(['user', 'assistant', 'user', 'assistant'])
  })
})

describe('approval', () => {
  test("'ask' pauses after the allowed calls ran; the log holds the request; an approval in a new run runs it once", async () => {
    const store = memorySessionStore()
    const { t, seen, base, result, events } = await pausedRun(store)
    expect(result.stopReason).toBe('awaiting_approval')
    expect(result.pending).toEqual([
      { toolCallId: 'toolu_write', tool: 'write', input: { path: 'b.txt' } },
    ])
    expect(t.ran).toEqual({ read: 1, send: 0, write: 0 })
    expect(events.filter((e) => e.type === 'tool-approval-requested')).toEqual([
      {
        type: 'tool-approval-requested',
        step: 1,
        toolCallId: 'toolu_write',
        tool: 'write',
        input: { path: 'b.txt' },
      },
    ])
    const requested = (store.data.get('s1') ?? []).filter((e) => e.type === 'approval')
    expect(requested).toMatchObject([
      { toolCallId: 'toolu_write', tool: 'write', status: 'requested', input: { path: 'b.txt' } },
    ])

    // a run that only says "resume" keeps waiting, without a model call
    const again = await runAgent({ ...base, messages: [], resume: true }).result
    expect(again.stopReason).toBe('awaiting_approval')
    expect(again.pending?.map((p) => p.toolCallId)).toEqual(['toolu_write'])
    expect(seen).toHaveLength(1)

    const run = runAgent({
      ...base,
      messages: [],
      resume: { approvals: { toolu_write: { approve: true } } },
    })
    const resumeEvents = await collect(run.events)
    const done = await run.result
    expect(done.stopReason).toBe('end_turn')
    expect(t.ran).toEqual({ read: 1, send: 0, write: 1 })
    expect(resumeEvents.find((e) => e.type === 'run-resume')).toMatchObject({
      state: 'tools',
      approved: ['toolu_write'],
      pending: [],
    })
    const sent = resultsSent(seen[1]!)
    expect(sent.get('toolu_read')).toEqual({
      text: expect.stringContaining('contents of a.txt'),
      isError: false,
    })
    expect(sent.get('toolu_write')).toEqual({
      text: expect.stringContaining('wrote b.txt'),
      isError: false,
    })
    const entries = store.data.get('s1') ?? []
    expect([...resultCounts(entries).values()]).toEqual([1, 1])
    expect(
      entries.filter((e) => e.type === 'approval').map((e) => e.type === 'approval' && e.status),
    ).toEqual(['requested', 'approved'])
    // resuming again finds nothing to do
    const idle = await runAgent({
      ...base,
      messages: [],
      resume: { approvals: { toolu_write: { approve: true } } },
    }).result
    expect(idle.stopReason).toBe('end_turn')
    expect(idle.warnings.map((w) => w.code)).toEqual([AGENT_LOOP_WARNINGS.approvalUnmatched])
    expect(t.ran.write).toBe(1)
    expect(seen).toHaveLength(2)
  })

  test('a denial never runs the call and its reason reaches the model as an error result', async () => {
    const store = memorySessionStore()
    const { t, seen, base } = await pausedRun(store)
    const reason = 'b.txt is the production config'
    const done = await runAgent({
      ...base,
      messages: [],
      resume: { approvals: { toolu_write: { approve: false, reason } } },
    }).result
    expect(done.stopReason).toBe('end_turn')
    expect(t.ran.write).toBe(0)
    const denied = resultsSent(seen[1]!).get('toolu_write')
    expect(denied?.isError).toBe(true)
    expect(denied?.text).toContain(reason)
    expect(denied?.text).toContain('not approved')
  })

  test("a callback's 'deny' answers at once; one that throws makes the call wait, with a warning", async () => {
    const deny = await pausedRun(memorySessionStore(), ({ path }) =>
      path === 'b.txt' ? 'deny' : 'allow',
    )
    expect(deny.result.stopReason).toBe('end_turn')
    expect(deny.t.ran.write).toBe(0)
    expect(resultsSent(deny.seen[1]!).get('toolu_write')?.isError).toBe(true)

    const thrown = await pausedRun(memorySessionStore(), () => {
      throw new Error('policy service down')
    })
    expect(thrown.result.stopReason).toBe('awaiting_approval')
    expect(thrown.result.warnings.map((w) => w.code)).toEqual([AGENT_LOOP_WARNINGS.approvalFailed])
    expect(thrown.result.warnings[0]?.message).toContain('policy service down')
  })

  test('a new user message instead of a decision denies the waiting call and is saved after its result', async () => {
    const store = memorySessionStore()
    const { t, seen, base } = await pausedRun(store)
    const done = await runAgent({
      ...base,
      messages: [textMessage('user', 'Never mind, just read it.')],
    }).result
    expect(done.stopReason).toBe('end_turn')
    expect(t.ran.write).toBe(0)
    expect(resultsSent(seen[1]!).get('toolu_write')?.text).toContain('new message instead')
    const roles = sessionMessages(store.data.get('s1') ?? []).map((m) => m.role)
    // user, reply, read's result, write's denial, the new message, the answer
    expect(roles).toEqual(['user', 'assistant', 'user', 'user', 'user', 'assistant'])
    expect([...resultCounts(store.data.get('s1') ?? []).values()]).toEqual([1, 1])
  })
})

/** A log as a crash leaves it: the header, the user message, and (optionally) a reply. */
function crashedLog(store: Store, id: string, reply?: ToolCallBlock[]): void {
  const user = textMessage('user', 'Read a.txt and email Bob.')
  const entries: SessionEntry[] = [
    sessionHeader(id),
    { type: 'message', id: 'e1', parentId: null, ts: new Date(0).toISOString(), message: user },
  ]
  if (reply) {
    const message: Message = {
      role: 'assistant',
      content: [{ type: 'text', text: 'On it.' }, ...reply],
    }
    entries.push({
      type: 'message',
      id: 'e2',
      parentId: 'e1',
      ts: new Date(0).toISOString(),
      message,
    })
  }
  store.data.set(id, entries)
}

describe('resume after a crash', () => {
  test('the idempotent call runs again; the other is answered as interrupted and never re-run', async () => {
    const store = memorySessionStore()
    crashedLog(store, 'c1', [
      { type: 'tool_call', id: 'toolu_r', name: 'read', input: { path: 'a.txt' } },
      { type: 'tool_call', id: 'toolu_s', name: 'send', input: { to: 'bob' } },
    ])
    const t = tools()
    const seen: ScriptRequest[] = []
    const { provider } = await emulated((req) => {
      seen.push(req)
      return 'Read it; the email may have gone out, I will check.'
    })
    const run = runAgent({
      provider,
      model: 'claude-haiku-4-5',
      tools: t.list,
      messages: [],
      resume: true,
      session: { store, id: 'c1' },
    })
    const events: AgentEvent[] = await collect(run.events)
    const result = await run.result
    expect(result.stopReason).toBe('end_turn')
    expect(t.ran).toEqual({ read: 1, send: 0, write: 0 })
    expect(events.find((e) => e.type === 'run-resume')).toEqual({
      type: 'run-resume',
      state: 'tools',
      rerun: ['toolu_r'],
      interrupted: ['toolu_s'],
      approved: [],
      denied: [],
      pending: [],
    })
    const sent = resultsSent(seen[0]!)
    expect(sent.get('toolu_r')).toEqual({
      text: expect.stringContaining('contents of a.txt'),
      isError: false,
    })
    expect(sent.get('toolu_s')?.isError).toBe(true)
    expect(sent.get('toolu_s')?.text).toContain('may or may not have taken effect')
    expect([...resultCounts(store.data.get('c1') ?? []).values()]).toEqual([1, 1])
  })

  test('a run that crashed before any reply makes the call again', async () => {
    const store = memorySessionStore()
    crashedLog(store, 'c2')
    const seen: ScriptRequest[] = []
    const { provider } = await emulated((req) => {
      seen.push(req)
      return 'Hello again.'
    })
    const run = runAgent({
      provider,
      model: 'claude-haiku-4-5',
      messages: [],
      resume: true,
      session: { store, id: 'c2' },
    })
    const events = await collect(run.events)
    expect((await run.result).stopReason).toBe('end_turn')
    expect(seen[0]?.lastUserText).toBe('Read a.txt and email Bob.')
    expect(events.find((e) => e.type === 'run-resume')).toMatchObject({ state: 'reply' })
    expect(sessionMessages(store.data.get('c2') ?? []).map((m) => m.role)).toEqual([
      'user',
      'assistant',
    ])
  })

  test('resume with nothing unfinished ends at once; resume without a session is refused', async () => {
    const store = memorySessionStore()
    const { provider, bodies } = await emulated(['Hi.'])
    const base = { provider, model: 'claude-haiku-4-5', session: { store, id: 'c3' } }
    await runAgent({ ...base, messages: [textMessage('user', 'Hi')] }).result
    const idle = await runAgent({ ...base, messages: [], resume: true }).result
    expect(idle).toMatchObject({ stopReason: 'end_turn', steps: 0, messages: [] })
    expect(bodies()).toHaveLength(1)
    expect(() =>
      runAgent({ provider, model: 'claude-haiku-4-5', messages: [], resume: true }),
    ).toThrow(ValidationError)
  })
})
