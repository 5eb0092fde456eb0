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
import { execFileSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

const root = new URL('..', import.meta.url).pathname
const bin = (name) => join(root, 'node_modules', '.bin', name)
let failed = 0
for (const name of readdirSync(join(root, 'packages')).sort()) {
  const dir = join(root, 'packages', name)
  let pkg
  try {
    pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
  } catch {
    continue
  }
  if (pkg.private) continue
  for (const [label, cmd, args] of [
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
  ]) {
    try {
      execFileSync(cmd, args, { cwd: dir, stdio: 'pipe', encoding: 'utf8' })
      console.log(`ok   ${label.padEnd(7)} ${pkg.name}`)
    } catch (error) {
      failed++
      console.log(`FAIL ${label.padEnd(7)} ${pkg.name}\n${error.stdout ?? ''}${error.stderr ?? ''}`)
    }
  }
}
if (failed > 0) {
  console.log(`${failed} package check(s) failed`)
  process.exit(1)
}
