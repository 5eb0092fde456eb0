import assert from 'node:assert/strict'
import {
  type Message,
  type SessionEntry,
  type SessionStore,
  sessionMessages,
  textMessage,
} from '@contextkit/core'
import { sessionHeader } from '@contextkit/core/store'
import * as z from 'zod'
import { runAgent } from '../run/run-agent.js'
import { defineTool } from '../tools/define-tool.js'
import { scriptedProvider } from './scripted-provider.js'

const TS = '2026-01-03T00:00:00.000Z'

/** How many results answer each tool call of the log. */
function resultCounts(entries: readonly SessionEntry[]): Record<string, number> {
  const counts: Record<string, number> = {}
  for (const m of sessionMessages(entries)) {
    for (const b of m.content) {
      if (b.type === 'tool_call') counts[b.id] ??= 0
      if (b.type === 'tool_result') counts[b.toolCallId] = (counts[b.toolCallId] ?? 0) + 1
    }
  }
  return counts
}

/** Tools that count their runs: `read` is idempotent, `send` is not, `write` asks first. */
function countingTools() {
  const ran = { read: 0, send: 0, write: 0 }
  const tool = (name: keyof typeof ran, flags: { idempotent?: boolean; approval?: 'ask' }) =>
    defineTool({
      name,
      description: `${name} something`,
      input: z.object({ arg: z.string() }),
      ...flags,
      execute: ({ arg }) => {
        ran[name]++
        return `${name} ${arg}`
      },
    })
  return {
    ran,
    tools: [
      tool('read', { idempotent: true }),
      tool('send', {}),
      tool('write', { approval: 'ask' }),
    ],
  }
}

const call = (id: string, name: string) =>
  ({ type: 'tool_call', id, name, input: { arg: 'x' } }) as const

/**
 * A log as a kill mid-tool leaves it (the reply saved, no results): `resume: true` runs the
 * idempotent call again and answers the other as interrupted, and the log ends whole.
 */
export async function crashResume(store: SessionStore, id: string): Promise<void> {
  const user = textMessage('user', 'Read and send.')
  const reply: Message = {
    role: 'assistant',
    content: [call(`${id}-r`, 'read'), call(`${id}-s`, 'send')],
  }
  await store.append(id, [
    sessionHeader(id, new Date(TS)),
    { type: 'message', id: `${id}-1`, parentId: null, ts: TS, message: user },
    { type: 'message', id: `${id}-2`, parentId: `${id}-1`, ts: TS, message: reply },
  ])
  const { ran, tools } = countingTools()
  const result = await runAgent({
    provider: scriptedProvider(['Done.']),
    model: 'claude-haiku-4-5',
    tools,
    messages: [],
    resume: true,
    session: { store, id },
  }).result
  assert.equal(result.stopReason, 'end_turn', `the resumed run must end: ${result.error?.message}`)
  assert.deepEqual(ran, { read: 1, send: 0, write: 0 }, 'only the idempotent call runs again')
  const { entries } = await store.load(id)
  assert.deepEqual(resultCounts(entries), { [`${id}-r`]: 1, [`${id}-s`]: 1 })
  const messages = sessionMessages(entries)
  assert.deepEqual(messages[0], user, "the user's message is kept first")
  assert.equal(messages.at(-1)?.role, 'assistant', 'the log ends with the answer')
}

/** A run paused on `approval: 'ask'` is finished by a later run given the approval. */
export async function approvalResume(store: SessionStore, id: string): Promise<void> {
  const provider = scriptedProvider([
    { toolCalls: [{ id: `${id}-w`, name: 'write', input: { arg: 'x' } }] },
    'Written.',
  ])
  const { ran, tools } = countingTools()
  const base = { provider, model: 'claude-haiku-4-5', tools, session: { store, id } }
  const paused = await runAgent({ ...base, messages: [textMessage('user', 'Write.')] }).result
  assert.equal(paused.stopReason, 'awaiting_approval')
  const waiting = (await store.load(id)).entries.filter((e) => e.type === 'approval')
  assert.deepEqual(
    waiting.map((e) => e.type === 'approval' && [e.toolCallId, e.status]),
    [[`${id}-w`, 'requested']],
    'the request for approval is in the log',
  )
  const done = await runAgent({
    ...base,
    messages: [],
    resume: { approvals: { [`${id}-w`]: { approve: true } } },
  }).result
  assert.equal(done.stopReason, 'end_turn', `the approved run must end: ${done.error?.message}`)
  assert.equal(ran.write, 1, 'the approved call runs once')
  const { entries } = await store.load(id)
  assert.deepEqual(resultCounts(entries), { [`${id}-w`]: 1 })
}
