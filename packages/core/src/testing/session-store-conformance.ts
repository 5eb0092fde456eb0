import assert from 'node:assert/strict'
import type { SessionEntry, SessionStore } from '../session-store.js'
import { sessionHeader } from '../session-store.js'
import { freshId, messageEntries, newSession, normalized } from './session-fixtures.js'
import { approvalRoundTrip, compactionRoundTrip, tailIsResumeSuffix } from './session-log-checks.js'
import { loadModesCheckIds, streamIsLoad } from './session-stream-checks.js'
import {
  type CheckOf,
  checksOf,
  rejectsValidation,
  runChecks,
  type StoreCheck,
  type StoreConformanceReport,
} from './store-checks.js'

/** Makes the store under test. Called once per check; stores may share storage (ids are unique). */
export type MakeSessionStore = () => SessionStore | Promise<SessionStore>

/** A fresh id for this check, remembered so it is deleted afterwards. */
function idFor(ids: string[], label: string): string {
  const id = freshId(label)
  ids.push(id)
  return id
}

async function expectEntries(store: SessionStore, id: string, expected: readonly SessionEntry[]) {
  const { entries, warnings } = await store.load(id)
  assert.deepEqual(warnings, [], `load("${id}") must report no warnings`)
  assert.deepEqual(entries, normalized(expected), `load("${id}") must return every entry, in order`)
}

const CHECKS: ReadonlyArray<readonly [string, CheckOf<SessionStore>]> = [
  ['approval entries round-trip with their optional fields', approvalRoundTrip],
  [
    'an unknown id loads empty, is not listed and deletes as false',
    async (store, ids) => {
      const id = idFor(ids, 'unknown')
      assert.deepEqual(await store.load(id), { entries: [], warnings: [] })
      assert.equal((await store.list()).includes(id), false, 'list() must not name it')
      assert.equal(await store.delete(id), false, 'delete() of an unknown id must return false')
    },
  ],
  [
    'append then load round-trips every entry, in order, across batches',
    async (store, ids) => {
      const id = idFor(ids, 'roundtrip')
      const first = newSession(id, 3)
      const second = messageEntries(`${id}-b`, 4, `${id}-m-2`)
      const third = [
        {
          type: 'custom' as const,
          id: `${id}-c`,
          parentId: `${id}-b-3`,
          ts: '2026-01-02T00:00:00.000Z',
          customType: 'app.note',
          data: { nested: { list: [1, 'two', null, true] } },
        },
        {
          type: 'compaction' as const,
          id: `${id}-k`,
          parentId: `${id}-c`,
          ts: '2026-01-02T00:00:01.000Z',
          summary: 'what happened before',
          firstKeptId: `${id}-b-0`,
        },
      ]
      await store.append(id, first)
      await store.append(id, second)
      await store.append(id, third)
      await expectEntries(store, id, [...first, ...second, ...third])
      // Defaults of the schemas are filled in on the way (a tool result without `isError`).
      const callId = 'toolu_1'
      const reply = messageEntries(`${id}-t`, 1, `${id}-k`)
      const result = {
        type: 'message' as const,
        id: `${id}-r`,
        parentId: `${id}-t-0`,
        ts: '2026-01-02T00:00:02.000Z',
        message: {
          role: 'user' as const,
          content: [
            { type: 'tool_result', toolCallId: callId, content: [{ type: 'text', text: 'ok' }] },
          ],
        },
      } as unknown as SessionEntry
      await store.append(id, [...reply, result])
      const { entries } = await store.load(id)
      const last = entries.at(-1)
      assert.ok(last?.type === 'message', 'the last entry must be the tool result message')
      assert.deepEqual(last.message.content[0], {
        type: 'tool_result',
        toolCallId: callId,
        content: [{ type: 'text', text: 'ok' }],
        isError: false,
      })
    },
  ],
  [
    'an empty batch writes nothing and does not create the session',
    async (store, ids) => {
      const id = idFor(ids, 'empty')
      await store.append(id, [])
      assert.deepEqual(await store.load(id), { entries: [], warnings: [] })
      assert.equal((await store.list()).includes(id), false, 'list() must not name it')
    },
  ],
  [
    'a batch with an invalid entry is rejected whole, before anything is written',
    async (store, ids) => {
      const id = idFor(ids, 'invalid')
      const start = newSession(id, 2)
      await store.append(id, start)
      const good = messageEntries(`${id}-x`, 2, `${id}-m-1`)
      const bad: unknown[] = [
        { type: 'message', id: 'no-message', parentId: null, ts: 'now' },
        { type: 'nonsense', id: 'x', parentId: null, ts: 'now' },
        { ...good[0], message: { role: 'system', content: [] } },
        { ...good[0], id: '' },
        'a string',
        null,
        42,
      ]
      for (const [n, entry] of bad.entries()) {
        await rejectsValidation(`a batch holding bad entry #${n}`, () =>
          store.append(id, [...good, entry] as SessionEntry[]),
        )
      }
      await rejectsValidation('a batch that is not an array', () =>
        store.append(id, 'nope' as unknown as SessionEntry[]),
      )
      await expectEntries(store, id, start)
      const fresh = idFor(ids, 'invalid-new')
      await rejectsValidation('a first batch with a bad entry', () =>
        store.append(fresh, [sessionHeader(fresh), bad[0] as SessionEntry]),
      )
      assert.deepEqual(await store.load(fresh), { entries: [], warnings: [] })
    },
  ],
  [
    'a header naming another session is rejected',
    async (store, ids) => {
      const id = idFor(ids, 'header')
      const other = freshId('other')
      await rejectsValidation('a header for another id', () =>
        store.append(id, [sessionHeader(other)]),
      )
      assert.deepEqual(await store.load(id), { entries: [], warnings: [] })
    },
  ],
  [
    'unsafe ids are rejected with ValidationError by load, append and delete',
    async (store) => {
      const unsafe: unknown[] = ['', '..', '../x', 'a/b', 'a\\b', '.hidden', 'a..b', 'a b', 'é']
      unsafe.push('x'.repeat(201), 42, null, undefined)
      for (const id of unsafe) {
        const label = JSON.stringify(id) ?? String(id)
        await rejectsValidation(`load(${label})`, () => store.load(id as string))
        await rejectsValidation(`append(${label})`, () =>
          store.append(id as string, messageEntries('safe', 1)),
        )
        await rejectsValidation(`delete(${label})`, () => store.delete(id as string))
      }
    },
  ],
  [
    'concurrent appends to one id are all kept, none interleaved within a batch',
    async (store, ids) => {
      const id = idFor(ids, 'concurrent')
      await store.append(id, [sessionHeader(id)])
      const batches = Array.from({ length: 16 }, (_, b) => messageEntries(`${id}-b${b}`, 5))
      await Promise.all(batches.map((batch) => store.append(id, batch)))
      const { entries, warnings } = await store.load(id)
      assert.deepEqual(warnings, [])
      assert.equal(entries.length, 1 + 16 * 5, 'every appended entry must be there')
      const body = entries.slice(1)
      const seen = new Set<number>()
      for (let at = 0; at < body.length; at += 5) {
        const head = body[at]?.id ?? ''
        const b = Number(/-b(\d+)-0$/.exec(head)?.[1] ?? Number.NaN)
        assert.ok(Number.isInteger(b) && !seen.has(b), `entry ${at + 1} must start a new batch`)
        seen.add(b)
        assert.deepEqual(body.slice(at, at + 5), normalized(batches[b] ?? []), `batch ${b} whole`)
      }
    },
  ],
  [
    'list names every stored session once, sorted',
    async (store, ids) => {
      const base = freshId('list')
      const mine = [`${base}-b`, `${base}-A`, `${base}-c`, `${base}-9`, `${base}-a.b`, `${base}-_`]
      ids.push(...mine)
      for (const id of [...mine].reverse()) await store.append(id, newSession(id, 1))
      await store.append(mine[0] as string, messageEntries(`${base}-more`, 2))
      const listed = await store.list()
      const sorted = [...listed].sort()
      assert.deepEqual(listed, sorted, 'list() must be sorted (by UTF-16 code unit, like sort())')
      assert.equal(new Set(listed).size, listed.length, 'list() must name each id once')
      const own = listed.filter((id) => id.startsWith(base))
      assert.deepEqual(own, [...mine].sort())
    },
  ],
  [
    'delete removes a session and reports whether there was one',
    async (store, ids) => {
      const id = idFor(ids, 'delete')
      const keep = idFor(ids, 'delete-keep')
      await store.append(id, newSession(id, 3))
      await store.append(keep, newSession(keep, 1))
      assert.equal(await store.delete(id), true, 'delete() of a stored session must return true')
      assert.deepEqual(await store.load(id), { entries: [], warnings: [] })
      assert.equal((await store.list()).includes(id), false, 'a deleted id must not be listed')
      assert.equal(await store.delete(id), false, 'a second delete() must return false')
      await expectEntries(store, keep, newSession(keep, 1))
      const again = newSession(id, 1)
      await store.append(id, again)
      await expectEntries(store, id, again)
    },
  ],
  [
    'sessions are kept apart',
    async (store, ids) => {
      const a = idFor(ids, 'apart-a')
      const b = idFor(ids, 'apart-b')
      await Promise.all([store.append(a, newSession(a, 2)), store.append(b, newSession(b, 3))])
      await expectEntries(store, a, newSession(a, 2))
      await expectEntries(store, b, newSession(b, 3))
    },
  ],
  [
    'big entries round-trip',
    async (store, ids) => {
      const id = idFor(ids, 'big')
      const big = 'x'.repeat(2 * 1024 * 1024)
      const manyBlocks = Array.from({ length: 2000 }, (_, n) => `block ${n} `.repeat(20))
      const entries = [
        sessionHeader(id),
        ...messageEntries(`${id}-m`, 1, null, () => big),
        ...messageEntries(`${id}-n`, 2, `${id}-m-0`, (n) => manyBlocks.join(n === 0 ? '\n' : '')),
      ]
      await store.append(id, entries)
      await store.append(id, messageEntries(`${id}-after`, 1, `${id}-n-1`))
      await expectEntries(store, id, [...entries, ...messageEntries(`${id}-after`, 1, `${id}-n-1`)])
    },
  ],
  [
    'unicode and control characters round-trip exactly',
    async (store, ids) => {
      const id = idFor(ids, 'unicode')
      const texts = [
        'emoji 👩‍💻🏳️‍🌈 and CJK 漢字かな 한국어',
        'RTL مرحبا بالعالم and combining é (e + U+0301)',
        'line\nbreaks\r\nand\ttabs, U+2028 \u2028 U+2029 \u2029',
        'NUL \u0000 bell \u0007 BOM \ufeff escape \u001b[0m',
        'lone surrogates \ud800 and \udfff',
        '"quotes" \\backslashes\\ </script> {"json":"inside"}',
      ]
      const entries = [
        sessionHeader(id),
        ...messageEntries(`${id}-m`, texts.length, null, (n) => texts[n] ?? ''),
        {
          type: 'custom' as const,
          id: `${id}-c`,
          parentId: `${id}-m-${texts.length - 1}`,
          ts: '2026-01-01T00:00:00.000Z',
          customType: 'ünïcode.kéy',
          data: { 'ключ 🔑': texts },
        },
      ]
      await store.append(id, entries)
      await expectEntries(store, id, entries)
    },
  ],
  ['a compaction entry round-trips in its place', compactionRoundTrip],
  [
    'loadTail (when the store has it) is a suffix of load holding what a resume needs',
    tailIsResumeSuffix,
  ],
  ['stream (when the store has it) yields what load returns, and can be left early', streamIsLoad],
  ['loadTail and stream (when the store has them) refuse unsafe ids', loadModesCheckIds],
]

/**
 * The conformance checks every core `SessionStore` must pass, one per behaviour of the
 * contract, each usable as its own test:
 *
 * ```ts
 * for (const check of sessionStoreChecks(() => myStore())) test(check.name, check.run)
 * ```
 *
 * `makeStore` is called once per check. Stores may share their storage: every check works on
 * ids of its own (`<label>-<random>`) and deletes them when it is done. That the loop finishes a
 * crashed or paused run from a store's log is checked by agent-loop (`sessionResumeChecks` in
 * `@contextkit/agent-loop/testing`), which runs the loop.
 */
export function sessionStoreChecks(makeStore: MakeSessionStore): StoreCheck[] {
  return checksOf('sessionStoreChecks', makeStore, CHECKS, (store, id) => store.delete(id))
}

/**
 * Run every check of {@link sessionStoreChecks} against a store, one after another. Plain async
 * code that throws (no test runner needed): resolves with the names of the checks when all
 * pass, and rejects with a `StoreConformanceError` naming every failed check.
 */
export async function sessionStoreConformance(
  makeStore: MakeSessionStore,
): Promise<StoreConformanceReport> {
  return runChecks(sessionStoreChecks(makeStore), 'session store')
}
