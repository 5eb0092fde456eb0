#!/usr/bin/env node
// Package-quality gate: `publint --strict` and `attw --pack --profile esm-only` for every
// publishable package under packages/. Exits non-zero when any check fails.
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
    ['attw', bin('attw'), ['--pack', '.', '--profile', 'esm-only', '--format', 'table-flipped']],
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
