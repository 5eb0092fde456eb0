import assert from 'node:assert/strict'
import type { SessionEntry, SessionStore } from '@contextkit/core'
import { summaryOf } from '../compaction/summarize.js'
import { applyCompaction } from '../session/apply-compaction.js'
import { lastEntryId } from '../session/entries.js'
import { runStateOf } from '../session/run-state.js'
import { freshId, messageEntries, newSession, normalized } from './session-fixtures.js'

/**
 * Conformance check: a `compaction` entry (with its optional token figures and reason) written
 * between message batches loads back exactly, and `applyCompaction` over the loaded entries
 * gives the summary and the messages from `firstKeptId` on, while every original message is
 * still stored.
 */
export async function compactionRoundTrip(store: SessionStore, ids: string[]): Promise<void> {
  const id = freshId('compaction')
  ids.push(id)
  const first = newSession(id, 6)
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
  const after = messageEntries(`${id}-n`, 2, `${id}-k`)
  await store.append(id, first)
  await store.append(id, [compaction])
  await store.append(id, after)
  const { entries, warnings } = await store.load(id)
  assert.deepEqual(warnings, [], `load("${id}") must report no warnings`)
  assert.deepEqual(entries, normalized([...first, compaction, ...after]), 'every entry, in order')
  const applied = applyCompaction(entries)
  assert.equal(summaryOf(applied.summary), compaction.summary, 'the summary comes first')
  assert.deepEqual(
    applied.messages.map((m) => m.content[0]),
    [...first.slice(5), ...after].flatMap((e) =>
      e.type === 'message' ? [e.message.content[0]] : [],
    ),
    'then the messages from firstKeptId on',
  )
}

/**
 * Conformance check for a store with the optional `loadTail`: on a session with a compaction
 * entry, a reply whose tool call waits for approval after it, and a newer compaction kept from
 * after that reply, `loadTail` returns the header and a suffix of `load`'s entries, and
 * `applyCompaction`, `runStateOf` and `lastEntryId` give the same over both. A store without
 * `loadTail` passes (runs load it in full).
 */
export async function tailLoadMatchesFull(store: SessionStore, ids: string[]): Promise<void> {
  if (store.loadTail === undefined) return
  const id = freshId('tail')
  ids.push(id)
  const ts = '2026-01-02T00:00:00.000Z'
  const call = {
    type: 'tool_call' as const,
    id: 'toolu_tail',
    name: 'deploy',
    input: { env: 'prod' },
  }
  const first = newSession(id, 12)
  const rest: SessionEntry[] = [
    {
      type: 'compaction',
      id: `${id}-k1`,
      parentId: `${id}-m-11`,
      ts,
      summary: 'Before.',
      firstKeptId: `${id}-m-8`,
    },
    {
      type: 'message',
      id: `${id}-r`,
      parentId: `${id}-k1`,
      ts,
      message: { role: 'assistant', content: [call] },
    },
    {
      type: 'approval',
      id: `${id}-a`,
      parentId: `${id}-r`,
      ts,
      toolCallId: call.id,
      tool: 'deploy',
      status: 'requested',
    },
    ...messageEntries(`${id}-n`, 1, `${id}-a`),
    {
      type: 'compaction',
      id: `${id}-k2`,
      parentId: `${id}-n-0`,
      ts,
      summary: 'Later.',
      firstKeptId: `${id}-n-0`,
    },
  ]
  await store.append(id, first)
  await store.append(id, rest)
  const full = await store.load(id)
  const tail = await store.loadTail(id)
  assert.deepEqual(tail.warnings, full.warnings, 'loadTail reports what load reports')
  const header = full.entries[0]
  assert.deepEqual(tail.entries[0], header, 'loadTail starts with the header')
  const body = tail.entries.slice(1)
  assert.deepEqual(
    body,
    full.entries.slice(full.entries.length - body.length),
    'then a suffix of load',
  )
  assert.ok(
    body.some((e) => e.id === `${id}-r`),
    'the tail reaches back to the last reply',
  )
  assert.deepEqual(applyCompaction(tail.entries), applyCompaction(full.entries), 'applyCompaction')
  assert.deepEqual(runStateOf(tail.entries), runStateOf(full.entries), 'runStateOf')
  assert.equal(lastEntryId(tail.entries), lastEntryId(full.entries), 'lastEntryId')
}
