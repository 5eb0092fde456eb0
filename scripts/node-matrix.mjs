#!/usr/bin/env node
// Runs a smoke subset of the suite on the other supported Node versions (22 and 24; the main run
// is on the lowest, 20). The subset holds what depends on the Node version: file system errors
// (prefill reads, core's text file reads and JSONL traces), errno codes, the V8-trace JIT test
// (it must skip itself outside V8 11), two copies of core, and each package's README example.
// Node comes from `npx -p node@<major>` (cached after the first run). Needs the packages built.
// Usage: node scripts/node-matrix.mjs [major …]   (default: 22 24)
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const VERSIONS = process.argv.length > 2 ? process.argv.slice(2) : ['22', '24']
const SUBSET = [
  'packages/prefill',
  'packages/core/src/read-text-file.test.ts',
  'packages/core/src/jsonl-trace.test.ts',
  'packages/core/src/errno.test.ts',
  'packages/core/src/two-copies.test.ts',
  'packages/core/src/readme.test.ts',
  'packages/context-metadata/src/jit-regression.test.ts',
  'packages/context-metadata/src/analyze-file.test.ts',
  'packages/context-metadata/src/readme.test.ts',
]

/** Run the subset on Node `major`; resolves to its exit code and output. */
function runOn(major) {
  return new Promise((resolve) => {
    const args = ['--yes', '-p', `node@${major}`, '--', 'node']
    args.push('node_modules/vitest/vitest.mjs', 'run', '--reporter=dot', ...SUBSET)
    const child = spawn('npx', args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (d) => (output += d))
    child.stderr.on('data', (d) => (output += d))
    child.on('error', (error) => resolve({ major, code: 1, output: String(error) }))
    child.on('close', (code) => resolve({ major, code: code ?? 1, output }))
  })
}

const started = Date.now()
const results = await Promise.all(VERSIONS.map(runOn))
let failed = false
for (const { major, code, output } of results) {
  const summary = output.match(/Tests\s+.*$/m)?.[0] ?? 'no summary'
  console.log(
    `node ${major}: ${code === 0 ? 'ok' : 'FAILED'} (${summary.replace(/\x1b\[[0-9;]*m/g, '')})`,
  )
  if (code !== 0) {
    failed = true
    console.log(output)
  }
}
console.log(`node matrix: ${((Date.now() - started) / 1000).toFixed(1)} s`)
process.exit(failed ? 1 : 0)
