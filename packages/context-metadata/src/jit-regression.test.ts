/**
 * Regression test for "fast alone, a hundred times slower after other inputs": an earlier CSV
 * counter searched for `"` from the same position in two branches (inside and outside a quoted
 * field). Once both branches had run (a file with quoted fields), TurboFan's value numbering
 * merged the two `StringIndexOf` nodes into one and scheduled it above the branch, so the
 * search ran on every step; on a file without quotes each search scanned to the end of the
 * chunk (vega-datasets' zipcodes.csv: ~650 ms per MiB instead of ~2 ms). Not a deoptimization,
 * not cons strings: the optimized code itself did quadratic work.
 *
 * The check counts, it does not time: a child process has V8 compile the counters after other
 * inputs, and the test reads TurboFan's own trace. No `StringIndexOf` may be merged by value
 * numbering, nothing may deoptimize on the large input, and the counts must be the reference's.
 * The `control` group holds the old pattern, so the test knows the trace still shows a merge.
 */
import { spawn } from 'node:child_process'
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'

let dir: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ctxmeta-jit-'))
})
afterAll(() => {
  rmSync(dir, { recursive: true, force: true })
})
const child = fileURLToPath(new URL('./jit-regression.child.ts', import.meta.url))
const packageDir = fileURLToPath(new URL('..', import.meta.url))
/** V8 tiers up only when the child asks, so each run compiles the same code from the same feedback. */
const FLAGS = ['--interrupt-budget=2000000000', '--no-use-osr', '--import', 'tsx']
/** `%GetOptimizationStatus` bit: the function has TurboFan code (V8 11, Node 20). */
const TURBOFANNED = 1 << 6

interface ChildResult {
  expected: unknown
  counted: unknown
  before: Record<string, number>
  after: Record<string, number>
}

/**
 * Runs one group. Its stdout (V8's traces, printed with C stdio) goes to a file: read through a
 * pipe it came back cut short here.
 */
async function runGroup(group: string) {
  const traceFile = join(dir, `${group}.trace`)
  const out = openSync(traceFile, 'w')
  let stderr = ''
  const code = await new Promise<number | null>((resolve, reject) => {
    const proc = spawn(process.execPath, [...FLAGS, child, group], {
      cwd: packageDir,
      stdio: ['ignore', out, 'pipe'],
    })
    proc.stderr?.setEncoding('utf8')
    proc.stderr?.on('data', (d: string) => {
      stderr += d
    })
    proc.on('error', reject)
    proc.on('close', resolve)
  })
  closeSync(out)
  const line = stderr.split('\n').find((l) => l.startsWith('RESULT '))
  if (code !== 0 || !line) throw new Error(`the ${group} child failed (exit ${code}):\n${stderr}`)
  const lines = readFileSync(traceFile, 'utf8').split('\n')
  return {
    result: JSON.parse(line.slice('RESULT '.length)) as ChildResult,
    /** Optimizer steps traced: proof that the trace is on and readable. */
    reductions: lines.filter((l) => l.includes(' by reducer ')).length,
    merged: lines.filter((l) =>
      /^- Replacement of #\d+: StringIndexOf\(.* by reducer ValueNumberingReducer$/.test(l),
    ),
    bailouts: lines.filter((l) => l.startsWith('[bailout')),
  }
}

const TIMEOUT = 120_000
/**
 * The trace lines and status bits read here are V8 11's (Node 20). V8 12 and 13 (Node 22, 24)
 * print the reductions differently, so the check would see no trace at all: it runs on V8 11 only
 * (CI runs it on Node 20; `scripts/node-matrix.mjs` runs the rest of the suite on 22 and 24).
 */
const V8_MAJOR = Number(process.versions.v8.split('.')[0])
const TRACE_FORMAT_KNOWN = V8_MAJOR === 11

describe.runIf(TRACE_FORMAT_KNOWN)(
  'counters stay linear after other inputs (TurboFan trace, child process)',
  () => {
    test(
      'control: two identical searches on two branches are merged, so the trace shows it',
      async () => {
        const { result, reductions, merged } = await runGroup('control')
        expect(reductions).toBeGreaterThan(0)
        expect(merged.length).toBeGreaterThan(0)
        expect(result.counted).toEqual(result.expected)
      },
      TIMEOUT,
    )

    test.each(['corpus', 'csv', 'lines', 'json'])(
      '%s: no search merged by value numbering, no deoptimization, the reference counts',
      async (group) => {
        const { result, reductions, merged, bailouts } = await runGroup(group)
        expect(reductions).toBeGreaterThan(0)
        expect(merged).toEqual([])
        expect(bailouts).toEqual([])
        expect(result.counted).toEqual(result.expected)
        for (const [name, status] of Object.entries(result.before)) {
          // entry points are compiled; helpers may have been inlined into them instead
          if (name.endsWith('.push')) expect(status & TURBOFANNED, name).toBe(TURBOFANNED)
          expect(result.after[name], name).toBe(status)
        }
      },
      TIMEOUT,
    )
  },
)
