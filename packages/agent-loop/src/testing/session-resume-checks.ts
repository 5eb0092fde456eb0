import assert from 'node:assert/strict'
import { invalidArgument, type SessionStore } from '@contextkit/core'
import {
  compactionLog,
  freshId,
  type MakeSessionStore,
  resumeLog,
  type StoreCheck,
} from '@contextkit/core/testing'
import { applyCompaction } from '../session/apply-compaction.js'
import { lastEntryId } from '../session/entries.js'
import { runStateOf } from '../session/run-state.js'
import { summaryOf } from '../session/summary-message.js'
import { approvalResume, crashResume } from './durable-checks.js'

/**
 * A session with a `compaction` entry loads into the history the loop sends: `applyCompaction`
 * over the loaded entries gives the summary and the messages from `firstKeptId` on.
 */
async function compactionApplies(store: SessionStore, id: string): Promise<void> {
  const batches = compactionLog(id)
  for (const batch of batches) await store.append(id, batch)
  const compaction = batches[1]?.[0]
  const applied = applyCompaction((await store.load(id)).entries)
  assert.ok(compaction?.type === 'compaction', 'the fixture holds a compaction entry')
  assert.equal(summaryOf(applied.summary), compaction.summary, 'the summary comes first')
  // the first kept message (`<id>-m-4`) and every message after it, the compaction's own included
  const kept = batches
    .flat()
    .filter((e) => e.type === 'message')
    .slice(4)
  assert.deepEqual(
    applied.messages.map((m) => m.content[0]),
    kept.flatMap((e) => (e.type === 'message' ? [e.message.content[0]] : [])),
    'then the messages from firstKeptId on',
  )
}

/**
 * For a store with the optional `loadTail`: `applyCompaction`, `runStateOf` and `lastEntryId`
 * give the same over its tail as over its full load (core's `resumeLog`: two compactions, a
 * call waiting for approval between them). A store without `loadTail` passes.
 */
async function tailResumesAsFull(store: SessionStore, id: string): Promise<void> {
  if (store.loadTail === undefined) return
  for (const batch of resumeLog(id)) await store.append(id, batch)
  const full = (await store.load(id)).entries
  const tail = (await store.loadTail(id)).entries
  assert.deepEqual(applyCompaction(tail), applyCompaction(full), 'applyCompaction')
  assert.deepEqual(runStateOf(tail), runStateOf(full), 'runStateOf')
  assert.equal(lastEntryId(tail), lastEntryId(full), 'lastEntryId')
}

const CHECKS: ReadonlyArray<
  readonly [string, string, (store: SessionStore, id: string) => Promise<void>]
> = [
  [
    'a run killed mid-tool resumes from the log: the idempotent call runs again, the other is answered as interrupted',
    'crash-resume',
    crashResume,
  ],
  ['a run paused for approval is finished by a later run', 'approval-resume', approvalResume],
  ['a compaction entry applies as summary + kept tail', 'compaction', compactionApplies],
  ['loadTail (when the store has it) resumes as the full load does', 'tail', tailResumesAsFull],
]

/**
 * The loop over a store: `runAgent` finishes a run killed mid-tool and a run paused for approval
 * from the store's log alone, and what it derives from a load (compaction applied, run state,
 * last entry) is the same over `loadTail` as over `load`. One `StoreCheck` (core's) each,
 * usable as its own test; the store's contract itself is core's `sessionStoreChecks`
 * (`@contextkit/core/testing`). Each check works on an id of its own and deletes it after.
 */
export function sessionResumeChecks(makeStore: MakeSessionStore): StoreCheck[] {
  if (typeof makeStore !== 'function') {
    invalidArgument('sessionResumeChecks', 'makeStore', 'a function returning a SessionStore')
  }
  return CHECKS.map(([name, label, check]) => ({
    name,
    async run() {
      const store = await makeStore()
      const id = freshId(label)
      try {
        await check(store, id)
      } finally {
        await store.delete(id).catch(() => {})
      }
    },
  }))
}
