import assert from 'node:assert/strict'
import type { SessionEntry, SessionStore } from '@contextkit/core'
import { summaryOf } from '../compaction/summarize.js'
import { applyCompaction } from '../session/apply-compaction.js'
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
