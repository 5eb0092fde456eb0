import assert from 'node:assert/strict'
import { ContextkitError, invalidArgument, toText, ValidationError } from '../errors.js'

/** One named conformance check: `run` resolves when the store behaves, and throws otherwise. */
export interface StoreCheck {
  /** The check's name. */
  name: string
  /** Run the check against a fresh store; rejects with what went wrong. */
  run(): Promise<void>
}

/** What a conformance run returns when every check passed. */
export interface StoreConformanceReport {
  /** Names of the checks that ran, in order. */
  passed: string[]
}

/** One or more store conformance checks failed; `failures` names each with its error. */
export class StoreConformanceError extends ContextkitError {
  /** The `code` of every error of this class: `store_conformance`. */
  static override readonly code: string = 'store_conformance'
  /** Every failed check and the error it threw. */
  readonly failures: ReadonlyArray<{ check: string; error: unknown }>

  constructor(failures: ReadonlyArray<{ check: string; error: unknown }>, kind = 'store') {
    // Built on a failure path: a wrong argument must not hide the failure behind a TypeError.
    if (!Array.isArray(failures)) failures = []
    if (typeof kind !== 'string') kind = 'store'
    const lines = failures.map((f) => `- ${toText(f?.check)}: ${describeFailure(f?.error)}`)
    super(`${failures.length} ${kind} conformance check(s) failed:\n${lines.join('\n')}`, {
      details: { failed: failures.map((f) => f?.check) },
    })
    this.failures = failures
  }
}

/** The first lines of what a check threw, for a report. */
export function describeFailure(error: unknown): string {
  return error instanceof Error ? error.message.split('\n').slice(0, 6).join('\n  ') : toText(error)
}

/** A check of a table: it gets a fresh store and the list its ids go in (deleted afterwards). */
export type CheckOf<S> = (store: S, ids: string[]) => Promise<void>

/**
 * The checks of `table` over stores from `makeStore`: each runs on a store of its own and
 * cleans the ids it used with `cleanup`, whatever happened.
 */
export function checksOf<S>(
  fn: string,
  makeStore: () => S | Promise<S>,
  table: ReadonlyArray<readonly [string, CheckOf<S>]>,
  cleanup: (store: S, id: string) => Promise<unknown>,
): StoreCheck[] {
  if (typeof makeStore !== 'function') {
    invalidArgument(fn, 'makeStore', 'a function returning a store', makeStore)
  }
  return table.map(([name, check]) => ({
    name,
    async run() {
      const store = await makeStore()
      const ids: string[] = []
      try {
        await check(store, ids)
      } finally {
        for (const id of ids) await cleanup(store, id).catch(() => {})
      }
    },
  }))
}

/**
 * Run `checks` one after another: resolves with their names when all pass, rejects with a
 * {@link StoreConformanceError} naming every failed one.
 */
export async function runChecks(
  checks: readonly StoreCheck[],
  kind: string,
): Promise<StoreConformanceReport> {
  const failures: Array<{ check: string; error: unknown }> = []
  const passed: string[] = []
  for (const check of checks) {
    try {
      await check.run()
      passed.push(check.name)
    } catch (error) {
      failures.push({ check: check.name, error })
    }
  }
  if (failures.length > 0) throw new StoreConformanceError(failures, kind)
  return { passed }
}

/** Assert that `action` rejects with a `ValidationError` (a store's answer to a caller's bug). */
export async function rejectsValidation(
  what: string,
  action: () => Promise<unknown>,
): Promise<void> {
  let outcome: unknown
  try {
    await action()
    outcome = 'it resolved'
  } catch (error) {
    if (ValidationError.isInstance(error)) return
    outcome = error
  }
  assert.fail(`${what} must reject with a ValidationError, but ${describeFailure(outcome)}`)
}
