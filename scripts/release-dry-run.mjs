#!/usr/bin/env node
// `pnpm release:dry-run`: what `pnpm release` would publish, without publishing. Each package
// under packages/ (not private) goes through `pnpm publish --dry-run` (workspace ranges rewritten,
// publishConfig applied, as a real publish), two at a time; each must list its README, LICENSE,
// CHANGELOG.md, package.json and dist/index.js, name itself at its version and publish with
// public access. pnpm is the pinned one, found once through npx and then run directly
// (`pinned-pnpm.mjs`), not through an `npx` start per package. Needs the build.
import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import pLimit from 'p-limit'
import { pinnedPnpm } from './pinned-pnpm.mjs'
import { publishablePackages } from './publishable-packages.mjs'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const REQUIRED = ['README.md', 'LICENSE', 'CHANGELOG.md', 'package.json', 'dist/index.js']
// one per core of CI's machine (2): each dry run is a pnpm and an npm process, busy on the CPU
// nearly all the time. Measured on 2 cores: one at a time took twice as long as two, for the same
// CPU seconds; three or four were no faster than two.
const CONCURRENCY = 2

/** `pnpm publish --dry-run` in the package folder; resolves to its problems (none: empty). */
function dryRun(pnpm, { folder, json }) {
  return new Promise((resolve) => {
    const args = ['publish', '--dry-run', '--no-git-checks']
    const cwd = join(ROOT, 'packages', folder)
    execFile(pnpm, args, { cwd, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const output = `${stdout}\n${stderr}`
      const problems = []
      if (error) problems.push(`pnpm publish --dry-run failed: ${error.message}`)
      if (!output.includes(`+ ${json.name}@${json.version}`)) {
        problems.push(`no "+ ${json.name}@${json.version}" line`)
      }
      for (const file of REQUIRED) {
        if (!new RegExp(`npm notice [\\d.]+k?B ${file.replace('.', '\\.')}\\n`).test(output)) {
          problems.push(`${file} is not in the tarball`)
        }
      }
      if (!output.includes('public access')) problems.push('not published with public access')
      resolve({ name: json.name, problems, output })
    })
  })
}

const started = Date.now()
const pnpm = await pinnedPnpm()
const limit = pLimit(CONCURRENCY)
const results = await Promise.all(publishablePackages().map((p) => limit(() => dryRun(pnpm, p))))
let failed = false
for (const { name, problems, output } of results) {
  if (problems.length === 0) {
    console.log(`${name}: ok`)
    continue
  }
  failed = true
  console.log(`${name}: ${problems.join('; ')}\n${output}`)
}
console.log(`release dry run: ${((Date.now() - started) / 1000).toFixed(1)} s`)
process.exit(failed ? 1 : 0)
