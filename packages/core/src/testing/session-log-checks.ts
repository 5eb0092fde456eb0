import assert from 'node:assert/strict'
import { assertString } from '../errors.js'
import type { SessionEntry, SessionStore } from '../session-store.js'
import { sessionHeader } from '../session-store.js'
import { resumeTailBoundary } from '../session-tail.js'
import { freshId, messageEntries, newSession, normalized } from './session-fixtures.js'

// The conformance checks of the entries the loop writes for a run's state (approvals,
// compactions) and of the optional `loadTail`.

const TS = '2026-01-03T00:00:00.000Z'

const call = (id: string, name: string) =>
  ({ type: 'tool_call', id, name, input: { arg: 'x' } }) as const

/** Approval entries (`requested` with its input, `denied` with a reason, `approved`) round-trip. */
export async function approvalRoundTrip(store: SessionStore, ids: string[]): Promise<void> {
  const id = freshId('approval')
  ids.push(id)
  const approval = { type: 'approval', ts: TS, toolCallId: `${id}-call`, tool: 'write' } as const
  const entries: SessionEntry[] = [
    sessionHeader(id, new Date(TS)),
    {
      type: 'message',
      id: `${id}-1`,
      parentId: null,
      ts: TS,
      message: { role: 'assistant', content: [call(`${id}-call`, 'write')] },
    },
    {
      ...approval,
      id: `${id}-2`,
      parentId: `${id}-1`,
      status: 'requested',
      input: { arg: 'x', nested: { list: [1, null] } },
    },
    { ...approval, id: `${id}-3`, parentId: `${id}-2`, status: 'denied', reason: 'not today' },
    { ...approval, id: `${id}-4`, parentId: `${id}-3`, status: 'approved' },
  ]
  await store.append(id, entries.slice(0, 3))
  await store.append(id, entries.slice(3))
  const loaded = await store.load(id)
  assert.deepEqual(loaded.warnings, [], 'approval entries must load without warnings')
  assert.deepEqual(loaded.entries, normalized(entries), 'approval entries must round-trip')
}

/**
 * A compacted log, as batches to append in order: a header and 6 messages (`<id>-m-<n>`), a
 * `compaction` entry (`<id>-k`, with its token figures and reason) keeping from `<id>-m-4`, and
 * 2 messages after it (`<id>-n-<n>`).
 */
export function compactionLog(id: string): SessionEntry[][] {
  assertString(id, 'compactionLog', 'id')
  const compaction: SessionEntry = {
    type: 'compaction',
    id: `${id}-k`,
    parentId: `${id}-m-5`,
    ts: '2026-01-02T00:00:00.000Z',
    summary: 'The user asked for X; steps 1-3 are done.',
    firstKeptId: `${id}-m-4`,
    tokensBefore: 16_500,
    tokensAfter: 3_800,
    reason: 'threshold',
  }
  return [newSession(id, 6), [compaction], messageEntries(`${id}-n`, 2, `${id}-k`)]
}

/**
 * A `compaction` entry (with its optional token figures and reason) written between message
 * batches loads back exactly, in its place, and every message before it stays stored.
 */
export async function compactionRoundTrip(store: SessionStore, ids: string[]): Promise<void> {
  const id = freshId('compaction')
  ids.push(id)
  const batches = compactionLog(id)
  for (const batch of batches) await store.append(id, batch)
  const { entries, warnings } = await store.load(id)
  assert.deepEqual(warnings, [], `load("${id}") must report no warnings`)
  assert.deepEqual(entries, normalized(batches.flat()), 'every entry, in order')
}

/**
 * A log whose tail a resume reads back from its end, as batches to append in order: a header
 * and 12 messages (`<id>-m-<n>`), a compaction keeping from `<id>-m-8`, a reply (`<id>-r`)
 * whose tool call waits for approval, a user message, and a newer compaction kept from after
 * that reply.
 */
export function resumeLog(id: string): SessionEntry[][] {
  assertString(id, 'resumeLog', 'id')
  const ts = '2026-01-02T00:00:00.000Z'
  const base = { ts } as const
  const rest: SessionEntry[] = [
    {
      ...base,
      type: 'compaction',
      id: `${id}-k1`,
      parentId: `${id}-m-11`,
      summary: 'Before.',
      firstKeptId: `${id}-m-8`,
    },
    {
      ...base,
      type: 'message',
      id: `${id}-r`,
      parentId: `${id}-k1`,
      message: { role: 'assistant', content: [call('toolu_tail', 'deploy')] },
    },
    {
      ...base,
      type: 'approval',
      id: `${id}-a`,
      parentId: `${id}-r`,
      toolCallId: 'toolu_tail',
      tool: 'deploy',
      status: 'requested',
    },
    ...messageEntries(`${id}-n`, 1, `${id}-a`),
    {
      ...base,
      type: 'compaction',
      id: `${id}-k2`,
      parentId: `${id}-n-0`,
      summary: 'Later.',
      firstKeptId: `${id}-n-0`,
    },
  ]
  return [newSession(id, 12), rest]
}

/**
 * For a store with the optional `loadTail`: on a session with a compaction entry, a reply
 * whose tool call waits for approval after it, and a newer compaction kept from after that
 * reply, `loadTail` reports what `load` reports and returns the header, then a suffix of
 * `load`'s entries that holds all core's `resumeTailBoundary` asks for (the kept messages of the
 * newest usable compaction and the last reply). A store without `loadTail` passes.
 */
export async function tailIsResumeSuffix(store: SessionStore, ids: string[]): Promise<void> {
  if (store.loadTail === undefined) return
  const id = freshId('tail')
  ids.push(id)
  for (const batch of resumeLog(id)) await store.append(id, batch)
  const full = await store.load(id)
  const tail = await store.loadTail(id)
  assert.deepEqual(tail.warnings, full.warnings, 'loadTail reports what load reports')
  assert.deepEqual(tail.entries[0], full.entries[0], 'loadTail starts with the header')
  const body = tail.entries.slice(1)
  const suffix = full.entries.slice(full.entries.length - body.length)
  assert.deepEqual(body, suffix, 'then a suffix of load')
  assert.ok(
    body.some((e) => e.id === `${id}-r`),
    'the tail reaches back to the last reply',
  )
  const enough = resumeTailBoundary()
  const reached = body.length === full.entries.length - 1 || [...body].reverse().some(enough)
  assert.ok(reached, 'the tail holds all resumeTailBoundary asks for')
}
