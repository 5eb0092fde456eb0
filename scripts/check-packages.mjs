#!/usr/bin/env node
// `pnpm check:packages`, the package-quality gate: `publint --strict` and arethetypeswrong for
// every publishable package under packages/. Prints one line per check (`ok   publint <name>`,
// `FAIL attw    <name>` and its problems), and exits non-zero when any check fails.
//
// Every package is packed once with the pinned pnpm (`pack-all.mjs`, into a temp folder removed
// at the end), and both checks read that tarball here through their Node APIs (publint and
// @arethetypeswrong/core): no CLI process per check, one TypeScript load for all, no packing
// again per check. They check as the CLIs did:
// - `publint --strict`: warnings fail too (suggestions are printed with them, and do not fail).
//   It sees only the tarball, so an entry that `files` leaves out reads as a missing file.
// - `attw --profile node16 --ignore-rules cjs-resolves-to-esm`: import (node16 ESM), require
//   (node16 CJS) and bundler resolution of every entry, with the one rule `cjs-resolves-to-esm`
//   ignored: our packages are ESM only and CommonJS callers load them with require(esm), which
//   Node ≥ 20.19 (our `engines`) supports and attw does not know about yet. Any other problem on
//   the require path (types not found, masquerading types, a missing export) still fails. The
//   `node10` resolution, which predates `exports` and cannot see subpaths such as
//   `@contextkit/core/node`, is left out by that profile. For attw's table of a package:
//   `pnpm exec attw --pack packages/<name> --profile node16 --ignore-rules cjs-resolves-to-esm`.
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { checkPackage, createPackageFromTarballData } from '@arethetypeswrong/core'
import { problemKindInfo } from '@arethetypeswrong/core/problems'
import { publint } from 'publint'
import { formatMessage } from 'publint/utils'
import { packAll, packFileName } from './pack-all.mjs'
import { publishablePackages } from './publishable-packages.mjs'

/** attw's `--profile node16`: problems found only under these resolutions do not fail. */
const IGNORED_RESOLUTIONS = ['node10']
/** attw's `--ignore-rules cjs-resolves-to-esm`, as the kind of problem that rule names. */
const IGNORED_KINDS = ['CJSResolvesToESM']

/** One check's verdict: its line, and under it what is wrong when it failed. */
function verdict(label, name, problems) {
  const ok = problems.length === 0
  const line = `${ok ? 'ok  ' : 'FAIL'} ${label.padEnd(7)} ${name}`
  return { ok, text: ok ? line : `${line}\n${problems.join('\n')}` }
}

/** `publint --strict` of a tarball: its messages (errors, then warnings, then suggestions). */
export async function publintTarball(name, tarball) {
  // publint takes the bytes as an ArrayBuffer (its CLI slices a file's Buffer the same way)
  const bytes = tarball.buffer.slice(tarball.byteOffset, tarball.byteOffset + tarball.byteLength)
  const options = { pack: { tarball: bytes }, strict: true, level: 'suggestion' }
  const { messages, pkg } = await publint(options)
  const failed = messages.some((m) => m.type === 'error')
  const order = ['error', 'warning', 'suggestion']
  const sorted = messages.toSorted((a, b) => order.indexOf(a.type) - order.indexOf(b.type))
  const lines = sorted.map((m) => `${m.type}: ${formatMessage(m, pkg, { color: false })}`)
  return verdict('publint', name, failed ? lines : [])
}

/** Where a problem is: an entry under a resolution, a pair of files, or a place in one file. */
function where(problem) {
  if ('entrypoint' in problem) return `"${problem.entrypoint}" under ${problem.resolutionKind}`
  if ('typesFileName' in problem) {
    return `${problem.typesFileName} (types of ${problem.implementationFileName})`
  }
  const imported = problem.moduleSpecifier ? ` importing "${problem.moduleSpecifier}"` : ''
  return `${problem.fileName}${imported}`
}

/**
 * The problems attw's CLI counts for its exit code with our profile and ignored rule (its
 * `getExitCode`): any of a kind not ignored, unless it names a resolution the profile leaves out.
 */
export function countedProblems(analysis) {
  if (!analysis.types) return []
  return analysis.problems.filter(
    (p) =>
      !IGNORED_KINDS.includes(p.kind) &&
      !('resolutionKind' in p && IGNORED_RESOLUTIONS.includes(p.resolutionKind)),
  )
}

/** arethetypeswrong of a tarball, as `attw --profile node16 --ignore-rules cjs-resolves-to-esm`. */
export async function attwTarball(name, tarball) {
  const analysis = await checkPackage(createPackageFromTarballData(tarball))
  const lines = countedProblems(analysis).map((p) => {
    const info = problemKindInfo[p.kind]
    return `${info.emoji} ${info.title}: ${where(p)} (${info.docsUrl})`
  })
  return verdict('attw', name, lines)
}

/** Both checks of one packed package, publint first. */
export async function checkTarball(name, file) {
  const tarball = new Uint8Array(await readFile(file))
  return [await publintTarball(name, tarball), await attwTarball(name, tarball)]
}

/** Pack every publishable package once, check each tarball; resolves to every check's verdict. */
async function checkAll() {
  const folder = await mkdtemp(join(tmpdir(), 'ck-check-packages-'))
  try {
    await packAll(folder)
    const results = []
    for (const { json } of publishablePackages()) {
      const name = json.name
      results.push(...(await checkTarball(name, join(folder, packFileName(name)))))
    }
    return results
  } finally {
    await rm(folder, { recursive: true, force: true })
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const results = await checkAll()
  for (const r of results) console.log(r.text)
  const failed = results.filter((r) => !r.ok).length
  if (failed > 0) {
    console.log(`${failed} package check(s) failed`)
    process.exit(1)
  }
}
