// Every export of every entry point, called with bad arguments, throws a typed contextkit error
// (or returns): never a TypeError, a RangeError, a hang or an error escaping the call.
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, expect, test } from 'vitest'
import { entryModules, type WalkFailure, walkModules } from './export-walk.js'
import { publishablePackages, ROOT } from './workspace.js'

/**
 * Exports that are not called, each with the reason. Only what truly cannot be called with bad
 * arguments belongs here (a function that waits forever by design, one that must not run
 * outside its test runner); a function that merely fails the walk is fixed instead.
 */
const SKIP: Readonly<Record<string, string>> = {}

function report(failures: readonly WalkFailure[]): string {
  const lines = failures.slice(0, 60).map((f) => `  ${f.id}: ${f.call} → ${f.failure}`)
  if (failures.length > 60) lines.push(`  … and ${failures.length - 60} more`)
  return `${failures.length} calls failed:\n${lines.join('\n')}`
}

const dirs: string[] = []
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true })
})

test('the walk passes typed errors and flags TypeErrors, hangs (sync and async) and escaped errors', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'contextkit-walk-fixture-'))
  dirs.push(dir)
  const core = pathToFileURL(join(ROOT, 'packages', 'core', 'dist', 'index.js')).href
  const file = join(dir, 'fixture.mjs')
  await writeFile(
    file,
    [
      `import { ValidationError } from '${core}'`,
      `export function typed(x) { throw new ValidationError('typed: x must be a string', []) }`,
      'export async function rejectsTyped(x) { throw new ValidationError("typed", []) }',
      'export function plain(x) { return x.length }',
      'export function spins(x) { if (x === 42) for (;;) {} return 1 }',
      `export function waits(x) { return x === '' ? new Promise(() => {}) : Promise.resolve(1) }`,
      'export function escapes(x) { if (x === null) setTimeout(() => { throw new Error("late") }); return 1 }',
      'export class Strict { constructor(o) { if (o === undefined) throw new RangeError("o") } }',
      'export const notAFunction = 1',
    ].join('\n'),
  )
  const result = await walkModules([{ label: 'fixture', url: pathToFileURL(file).href }], {
    timeoutMs: 300,
  })
  // 7 functions, each with 6 values × lengths 1..2 (arity 1 + 1).
  expect(result.calls).toBe(7 * 6 * 2)
  const failed = (id: string) =>
    result.failures.filter((f) => f.id === `fixture#${id}`).map((f) => `${f.call} ${f.failure}`)
  expect(failed('typed')).toEqual([])
  expect(failed('rejectsTyped')).toEqual([])
  expect(failed('plain')).toEqual([
    expect.stringMatching(/^plain\(null\) TypeError/),
    expect.stringMatching(/^plain\(null, null\) TypeError/),
    expect.stringMatching(/^plain\(undefined\) TypeError/),
    expect.stringMatching(/^plain\(undefined, undefined\) TypeError/),
  ])
  expect(failed('spins')).toEqual([
    'spins(42) hang: blocked the event loop (process killed)',
    'spins(42, 42) hang: blocked the event loop (process killed)',
  ])
  expect(failed('waits')).toEqual([
    "waits('') hang: the promise did not settle in 300 ms",
    "waits('', '') hang: the promise did not settle in 300 ms",
  ])
  expect(failed('escapes')).toEqual([
    'escapes(null) crashed the process after the call: Error: late',
    'escapes(null, null) crashed the process after the call: Error: late',
  ])
  expect(failed('Strict')).toEqual([
    'new Strict(undefined) RangeError: o',
    'new Strict(undefined, undefined) RangeError: o',
  ])
}, 30_000)

test('every export of every entry point throws typed errors on bad arguments', async () => {
  const packages = publishablePackages()
  const skip = Object.keys(SKIP)
  const results = await Promise.all(packages.map((p) => walkModules(entryModules(p), { skip })))
  const failures = results.flatMap((r) => r.failures)
  const calls = results.reduce((n, r) => n + r.calls, 0)
  console.info(
    `export walk: ${calls} calls of ${results.reduce((n, r) => n + r.exports.size, 0)} exports, ` +
      `${failures.length} failed`,
  )
  // Every package's exports were reached (a broken import would walk nothing).
  for (const [i, r] of results.entries()) {
    expect(r.exports.size, packages[i]!.json.name).toBeGreaterThan(0)
  }
  expect(calls).toBeGreaterThan(3000)
  for (const id of skip) {
    expect(
      failures.some((f) => f.id === id),
      `${id} is skipped`,
    ).toBe(false)
  }
  expect(failures.length, report(failures)).toBe(0)
}, 120_000)
