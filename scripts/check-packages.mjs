#!/usr/bin/env node
// Package-quality gate: `publint --strict` and arethetypeswrong for every publishable package
// under packages/. Exits non-zero when any check fails.
//
// attw runs with the `node16` profile, which resolves every entry the way TypeScript does for
// `import` (node16 ESM), for `require` (node16 CJS) and for bundlers, and with the one rule
// `cjs-resolves-to-esm` ignored: our packages are ESM only and CommonJS callers load them with
// require(esm), which Node ≥ 20.19 (our `engines`) supports and attw does not know about yet. Any
// other problem on the require path (types not found, masquerading types, a missing export)
// still fails. (The `node10` resolution, which predates `exports` and cannot see subpaths such as
// `@contextkit/core/node`, is left out by that profile.)
import { execFile } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import pLimit from 'p-limit'

const root = new URL('..', import.meta.url).pathname
const bin = (name) => join(root, 'node_modules', '.bin', name)
const run = promisify(execFile)
const CHECKS = [
  ['publint', bin('publint'), ['--strict']],
  [
    'attw',
    bin('attw'),
    [
      '--pack',
      '.',
      '--profile',
      'node16',
      '--ignore-rules',
      'cjs-resolves-to-esm',
      '--format',
      'table-flipped',
    ],
  ],
]

/** The publishable packages under packages/, in name order. */
function publishable() {
  const found = []
  for (const name of readdirSync(join(root, 'packages')).sort()) {
    const dir = join(root, 'packages', name)
    let pkg
    try {
      pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
    } catch {
      continue
    }
    if (!pkg.private) found.push({ dir, name: pkg.name })
  }
  return found
}

/** One check of one package: its line, and its output when it failed. */
async function check({ dir, name }, [label, cmd, args]) {
  try {
    await run(cmd, args, { cwd: dir, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
    return { ok: true, text: `ok   ${label.padEnd(7)} ${name}` }
  } catch (error) {
    return {
      ok: false,
      text: `FAIL ${label.padEnd(7)} ${name}\n${error.stdout ?? ''}${error.stderr ?? error.message}`,
    }
  }
}

// each check packs its package and waits on the file system as much as it computes: one per
// core at a time (they ran one after another, ~1 minute of CI); printed in the usual order
const limit = pLimit(Math.max(2, availableParallelism()))
const results = await Promise.all(
  publishable().flatMap((pkg) => CHECKS.map((c) => limit(() => check(pkg, c)))),
)
for (const r of results) console.log(r.text)
const failed = results.filter((r) => !r.ok).length
if (failed > 0) {
  console.log(`${failed} package check(s) failed`)
  process.exit(1)
}
