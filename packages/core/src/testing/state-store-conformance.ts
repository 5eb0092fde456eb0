import assert from 'node:assert/strict'
import { assertOptions, invalidArgument } from '../errors.js'
import { RevisionConflictError, type StateStore } from '../state-store.js'
import { freshId } from './session-fixtures.js'
import {
  type CheckOf,
  checksOf,
  describeFailure,
  runChecks,
  type StoreCheck,
  type StoreConformanceReport,
} from './store-checks.js'

/** Makes the store under test. Called once per check; stores may share storage (ids are unique). */
export type MakeStateStore<T> = () => StateStore<T> | Promise<StateStore<T>>

/** Options of {@link stateStoreChecks}. */
export interface StateStoreCheckOptions<T> {
  /**
   * The `n`th value to save, each different from the others (a store that checks its values,
   * such as resumption's self-state store, needs values of its type). Default `{ n, text }`
   * objects, nested arrays and unicode included.
   */
  sample?: (n: number) => T
  /**
   * What of a state must load back as it was saved. Default: all of it. A store that stamps the
   * states it saves (resumption's self-state files set `revision` and `updatedAt` in them)
   * leaves those fields out.
   */
  comparable?: (state: T) => unknown
}

/** What the checks save, when no `sample` is given. */
function defaultSample(n: number): unknown {
  return { n, text: `value ${n} é 👩‍💻`, nested: { list: [n, null, 'two', true] } }
}

/** A fresh agent id for this check. */
function agentFor(ids: string[], label: string): string {
  const id = freshId(label)
  ids.push(id)
  return id
}

async function conflictOf(save: Promise<unknown>, what: string): Promise<RevisionConflictError> {
  const error = await save.then(
    () => undefined,
    (e: unknown) => e,
  )
  if (RevisionConflictError.isInstance(error)) return error
  assert.fail(`${what} must reject with a RevisionConflictError, but ${describeFailure(error)}`)
}

/** What a check is given besides the store and its ids. */
interface Kit<T> {
  sample: (n: number) => T
  /** Assert that agent `id` loads `expected` at `revision`. */
  expectStored(store: StateStore<T>, id: string, expected: T, revision: number): Promise<void>
}

type Check<T> = (store: StateStore<T>, ids: string[], kit: Kit<T>) => Promise<void>

async function unknownIsNull<T>(store: StateStore<T>, ids: string[]): Promise<void> {
  assert.equal(await store.load(agentFor(ids, 'unknown')), null)
}

async function revisionsCount<T>(store: StateStore<T>, ids: string[], kit: Kit<T>) {
  const id = agentFor(ids, 'revisions')
  assert.deepEqual(await store.save(id, kit.sample(1)), { revision: 1 })
  assert.deepEqual(await store.save(id, kit.sample(2)), { revision: 2 })
  await kit.expectStored(store, id, kit.sample(2), 2)
}

async function compareAndSet<T>(store: StateStore<T>, ids: string[], kit: Kit<T>) {
  const { sample } = kit
  const id = agentFor(ids, 'cas')
  const save = (n: number, expectedRevision: number) =>
    store.save(id, sample(n), { expectedRevision })
  assert.deepEqual(await save(1, 0), { revision: 1 })
  const again = await conflictOf(save(2, 0), 'a save over revision 0')
  assert.equal(again.expectedRevision, 0)
  const actual = again.actualRevision
  assert.ok(actual === undefined || actual === 1, 'actualRevision 1')
  assert.deepEqual(await save(3, 1), { revision: 2 })
  await conflictOf(save(4, 1), 'a stale save')
  await conflictOf(save(5, 9), 'a save from the future')
  await kit.expectStored(store, id, sample(3), 2)
  const nobody = agentFor(ids, 'cas-none')
  const first = store.save(nobody, sample(6), { expectedRevision: 3 })
  await conflictOf(first, 'a save over nothing')
  assert.equal(await store.load(nobody), null, 'a refused first save stores nothing')
}

async function racingSaves<T>(store: StateStore<T>, ids: string[], kit: Kit<T>) {
  const id = agentFor(ids, 'race')
  await store.save(id, kit.sample(0))
  const results = await Promise.allSettled(
    Array.from({ length: 8 }, (_, i) => store.save(id, kit.sample(i + 1), { expectedRevision: 1 })),
  )
  assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1, 'exactly one wins')
  for (const r of results) {
    if (r.status === 'rejected') {
      assert.ok(RevisionConflictError.isInstance(r.reason), describeFailure(r.reason))
    }
  }
  assert.equal((await store.load(id))?.revision, 2)
}

async function agentsApart<T>(store: StateStore<T>, ids: string[], kit: Kit<T>) {
  const a = agentFor(ids, 'apart-a')
  const b = agentFor(ids, 'apart-b')
  await Promise.all([store.save(a, kit.sample(1)), store.save(b, kit.sample(2))])
  await store.save(b, kit.sample(3))
  await kit.expectStored(store, a, kit.sample(1), 1)
  await kit.expectStored(store, b, kit.sample(3), 2)
}

function checks<T>(): ReadonlyArray<readonly [string, Check<T>]> {
  return [
    ['an unknown agent loads null', unknownIsNull],
    ['saves count revisions from 1 and load gives the last value back', revisionsCount],
    [
      'compare-and-set: the expected revision wins, any other is a RevisionConflictError that writes nothing',
      compareAndSet,
    ],
    ['racing saves on one revision: exactly one wins, the others conflict', racingSaves],
    ['agents are kept apart', agentsApart],
  ]
}

/**
 * The conformance checks every core `StateStore` must pass, one per behaviour of the contract
 * (revisions, compare-and-set, racing writers, agents apart), each usable as its own test:
 *
 * ```ts
 * for (const check of stateStoreChecks(() => myStore())) test(check.name, check.run)
 * ```
 *
 * `makeStore` is called once per check. Stores may share their storage: every check saves under
 * agent ids of its own (`<label>-<random>`). The contract has no delete, so those stay.
 */
export function stateStoreChecks<T>(
  makeStore: MakeStateStore<T>,
  options: StateStoreCheckOptions<T> = {},
): StoreCheck[] {
  assertOptions(options, 'stateStoreChecks')
  options ??= {}
  for (const name of ['sample', 'comparable'] as const) {
    const given = options[name]
    if (given !== undefined && typeof given !== 'function') {
      invalidArgument('stateStoreChecks', `options.${name}`, 'a function', given)
    }
  }
  const sample = options.sample ?? (defaultSample as (n: number) => T)
  const comparable = options.comparable ?? ((state: T) => state)
  const kit: Kit<T> = {
    sample,
    async expectStored(store, id, expected, revision) {
      const loaded = await store.load(id)
      assert.ok(loaded !== null, `load("${id}") must find the state saved`)
      assert.equal(loaded.revision, revision, `load("${id}") must give revision ${revision}`)
      assert.deepEqual(comparable(loaded.state), comparable(expected), 'the state saved')
    },
  }
  const table = checks<T>().map(
    ([name, check]) => [name, (store, ids) => check(store, ids, kit)] as const,
  ) satisfies ReadonlyArray<readonly [string, CheckOf<StateStore<T>>]>
  return checksOf('stateStoreChecks', makeStore, table, async () => {})
}

/**
 * Run every check of {@link stateStoreChecks} against a store, one after another: resolves with
 * the names of the checks when all pass, and rejects with a `StoreConformanceError` naming
 * every failed check.
 */
export async function stateStoreConformance<T>(
  makeStore: MakeStateStore<T>,
  options: StateStoreCheckOptions<T> = {},
): Promise<StoreConformanceReport> {
  return runChecks(stateStoreChecks(makeStore, options), 'state store')
}
