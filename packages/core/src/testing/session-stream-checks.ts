import assert from 'node:assert/strict'
import type { SessionEntry, SessionStore } from '../session-store.js'
import { freshId, messageEntries, newSession } from './session-fixtures.js'
import { resumeLog } from './session-log-checks.js'
import { rejectsValidation } from './store-checks.js'

// The conformance checks of the optional `stream` (the full history one entry at a time) and of
// what the two optional load modes (`stream`, `loadTail`) share with `load`.

/** Every entry of `store.stream(id)`, and its warnings once the iteration ended. */
async function streamed(store: SessionStore, id: string) {
  const stream = (store.stream as NonNullable<SessionStore['stream']>).call(store, id)
  const entries: SessionEntry[] = []
  for await (const entry of stream) entries.push(entry)
  return { entries, warnings: [...stream.warnings] }
}

/**
 * For a store with the optional `stream`: it yields exactly what `load` returns (entries, in
 * order, and warnings) on a session of several batches with compactions and an approval; an
 * unknown id yields nothing; leaving the loop early lets the session be appended to and read
 * again at once. A store without `stream` passes.
 */
export async function streamIsLoad(store: SessionStore, ids: string[]): Promise<void> {
  if (store.stream === undefined) return
  const id = freshId('stream')
  ids.push(id)
  for (const batch of resumeLog(id)) await store.append(id, batch)
  assert.deepEqual(
    await streamed(store, id),
    await store.load(id),
    'stream yields what load returns',
  )
  const unknown = freshId('stream-unknown')
  assert.deepEqual(await streamed(store, unknown), { entries: [], warnings: [] })
  let seen = 0
  for await (const _ of store.stream(id)) if (++seen === 2) break
  assert.equal(seen, 2, 'a stream can be left early')
  const more = messageEntries(`${id}-more`, 2, `${id}-k2`)
  await store.append(id, more)
  const full = await store.load(id)
  assert.deepEqual(
    full.entries.slice(-2).map((e) => e.id),
    more.map((e) => e.id),
  )
  assert.deepEqual(await streamed(store, id), full, 'and the stream reads the appended entries')
}

/**
 * `loadTail` and `stream` (each when the store has it) refuse unsafe ids with a
 * `ValidationError`, thrown by the call or by the iteration; on a session without a compaction
 * entry `loadTail` returns what `load` returns.
 */
export async function loadModesCheckIds(store: SessionStore, ids: string[]): Promise<void> {
  const unsafe: unknown[] = ['', '..', '../x', 'a/b', '.hidden', 'x'.repeat(201), 42, null]
  for (const bad of unsafe) {
    const label = JSON.stringify(bad) ?? String(bad)
    if (store.loadTail !== undefined) {
      const loadTail = store.loadTail.bind(store)
      await rejectsValidation(`loadTail(${label})`, () => loadTail(bad as string))
    }
    if (store.stream !== undefined) {
      const stream = store.stream.bind(store)
      await rejectsValidation(`stream(${label})`, async () => {
        for await (const _ of stream(bad as string)) break
      })
    }
  }
  if (store.loadTail === undefined) return
  const id = freshId('tail-plain')
  ids.push(id)
  await store.append(id, newSession(id, 5))
  assert.deepEqual(await store.loadTail(id), await store.load(id), 'no compaction: the whole log')
}
