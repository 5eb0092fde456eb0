#!/usr/bin/env node
// Prints `tests: N passed, N failed` from vitest's JSON results (0 and 0 when no tests ran).
// A test file that failed to load has no failed test but counts as one failure, so a broken
// import can never pass unnoticed.
import { readFileSync } from 'node:fs'

const file = process.argv[2] ?? '.vitest/results.json'
let passed = 0
let failed = 0
try {
  const results = JSON.parse(readFileSync(file, 'utf8'))
  passed = results.numPassedTests ?? 0
  failed = results.numFailedTests ?? 0
  for (const suite of results.testResults ?? []) {
    const assertions = suite.assertionResults ?? []
    if (suite.status === 'failed' && !assertions.some((a) => a.status === 'failed')) failed++
  }
} catch {
  // no results: the run stopped before vitest (build, typecheck or lint failed)
}
console.log(`tests: ${passed} passed, ${failed} failed`)
