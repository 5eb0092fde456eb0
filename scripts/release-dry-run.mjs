#!/usr/bin/env node
// `pnpm release:dry-run`: what `pnpm release` would publish, without publishing. Each package
// under packages/ (not private) goes through `pnpm publish --dry-run` (workspace ranges rewritten,
// publishConfig applied, as a real publish), four at a time; each must list its README, LICENSE,
// CHANGELOG.md, package.json and dist/index.js, and name itself at its version. Needs the build.
import { execFile } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import pLimit from 'p-limit'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const REQUIRED = ['README.md', 'LICENSE', 'CHANGELOG.md', 'package.json', 'dist/index.js']

/** The publishable packages: folder and package.json of each. */
function packages() {
  const out = []
  for (const folder of readdirSync(join(ROOT, 'packages')).sort()) {
    let json
    try {
      json = JSON.parse(readFileSync(join(ROOT, 'packages', folder, 'package.json'), 'utf8'))
    } catch {
      continue
    }
    if (!json.private) out.push({ folder, json })
  }
  return out
}

/** The pinned pnpm (`packageManager` of the root package.json, e.g. `pnpm@10.34.9`). */
const PNPM =
  JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).packageManager ?? 'pnpm@10.34.9'

/** `pnpm publish --dry-run` in the package folder; resolves to its problems (none: empty). */
function dryRun({ folder, json }) {
  return new Promise((resolve) => {
    // pnpm through npx, as the README's commands run it: CI's machine may have no global pnpm
    const args = ['--yes', PNPM, 'publish', '--dry-run', '--no-git-checks']
    const cwd = join(ROOT, 'packages', folder)
    execFile('npx', args, { cwd, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
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
const limit = pLimit(4)
const results = await Promise.all(packages().map((p) => limit(() => dryRun(p))))
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
