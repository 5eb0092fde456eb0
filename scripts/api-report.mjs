#!/usr/bin/env node
// API reports: api-extractor over every `exports` entry of every publishable package, written to
// `packages/<name>/api/<entry>.api.md` (`index` for the root, `node`, `anthropic`, … for the
// subpaths). A changed public signature changes its report, so it shows in review.
//
//   node scripts/api-report.mjs           check: fails when a report differs (`pnpm check:api`)
//   node scripts/api-report.mjs --update  rewrite the reports (`pnpm api:update`)
//
// A middleware package with `./node` also has a Node root (`index.node`, its root's `node`
// branch): it is the root plus `./node`, so only those two are reported (the `default` branch's
// types). Core has no Node root: every branch of its root serves `index`. Every TSDoc and api-extractor warning (an unresolved `{@link}`, a
// type used by a signature but not exported, a public name without a doc comment, malformed
// TSDoc) fails the check and is listed. api-extractor looks at one entry at a time, so a name one
// entry uses and a sibling entry of the same package exports (a `./node` signature naming a root
// type) is not a warning: the user reaches it from the sibling. Needs the packages built (reports
// read dist/*.d.ts).
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { CompilerState, Extractor, ExtractorConfig } from '@microsoft/api-extractor'
import ts from 'typescript'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const update = process.argv.includes('--update')

/** Every reported entry: package folder, package.json path, entry name and its declaration file. */
function entries() {
  const out = []
  for (const folder of readdirSync(join(ROOT, 'packages')).sort()) {
    const dir = join(ROOT, 'packages', folder)
    const packageJson = join(dir, 'package.json')
    if (!existsSync(packageJson)) continue
    const json = JSON.parse(readFileSync(packageJson, 'utf8'))
    if (json.private) continue
    for (const [subpath, target] of Object.entries(json.exports ?? {})) {
      if (subpath === './package.json') continue
      // a conditional root: its `default` branch is the pure root
      const types = target.types ?? target.default?.types
      if (typeof types !== 'string') throw new Error(`${json.name} ${subpath}: no types`)
      const name = subpath === '.' ? 'index' : subpath.slice(2).replaceAll('/', '-')
      out.push({ folder, dir, packageJson, name, types: join(dir, types), pkg: json.name })
    }
  }
  return out
}

/** The api-extractor configuration of one entry (no config file: everything is here). */
function configOf(entry) {
  return ExtractorConfig.prepare({
    configObjectFullPath: join(entry.dir, 'api-extractor.json'), // not read: only a base path
    packageJsonFullPath: entry.packageJson,
    configObject: {
      projectFolder: entry.dir,
      mainEntryPointFilePath: entry.types,
      compiler: { tsconfigFilePath: join(entry.dir, 'tsconfig.json') },
      apiReport: {
        enabled: true,
        reportFileName: `${entry.name}.api.md`,
        reportFolder: join(entry.dir, 'api'),
        reportTempFolder: join(ROOT, 'node_modules', '.cache', 'api-report', entry.folder),
      },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      messages: {
        compilerMessageReporting: { default: { logLevel: 'warning' } },
        extractorMessageReporting: {
          default: { logLevel: 'warning' },
          // release tags (@public, @beta) are not used: everything exported is public
          'ae-missing-release-tag': { logLevel: 'none' },
          // checked below against the sibling entries, so not written into the report
          'ae-forgotten-export': { logLevel: 'warning', addToApiReportFile: false },
          'ae-unresolved-link': { logLevel: 'warning', addToApiReportFile: false },
        },
        tsdocMessageReporting: { default: { logLevel: 'warning' } },
      },
    },
  })
}

/** The names each package exports over all its entries, by package name (read with tsc). */
function exportsByPackage(all) {
  const out = new Map()
  const program = ts.createProgram(
    all.map((entry) => entry.types),
    { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext },
  )
  const checker = program.getTypeChecker()
  for (const entry of all) {
    const file = program.getSourceFile(entry.types)
    const module = file && checker.getSymbolAtLocation(file)
    if (!module) throw new Error(`${entry.pkg} ${entry.name}: cannot read ${entry.types}`)
    const names = out.get(entry.pkg) ?? new Set()
    for (const symbol of checker.getExportsOfModule(module)) names.add(symbol.name)
    out.set(entry.pkg, names)
  }
  return out
}

/**
 * Whether a warning names a symbol that a sibling entry of the same package exports: an
 * `ae-forgotten-export` or an `ae-unresolved-link` that api-extractor, looking at one entry,
 * cannot resolve.
 */
function reachableFromSibling(message, pkg, exported) {
  const forgotten = /^The symbol "([^"]+)" needs to be exported/.exec(message.text)
  const link = /The package "([^"]+)" does not have an export "([^"]+)"/.exec(message.text)
  if (message.messageId === 'ae-forgotten-export' && forgotten) {
    return exported.get(pkg)?.has(forgotten[1]) === true
  }
  if (message.messageId === 'ae-unresolved-link' && link) {
    return exported.get(link[1])?.has(link[2]) === true
  }
  return false
}

const all = entries()
const exported = exportsByPackage(all)
let changed = 0
let warnings = 0
/** Warnings by message id, over every entry. */
const byKind = new Map()
/**
 * One TypeScript program per package, shared by its entries' reports (api-extractor's
 * `compilerState`): each entry used to load the package's declarations again.
 */
const compilerStates = new Map()
function compilerStateOf(entry, config) {
  if (!compilerStates.has(entry.pkg)) {
    const siblings = all.filter((e) => e.pkg === entry.pkg && e !== entry).map((e) => e.types)
    compilerStates.set(entry.pkg, CompilerState.create(config, { additionalEntryPoints: siblings }))
  }
  return compilerStates.get(entry.pkg)
}
for (const entry of all) {
  mkdirSync(join(entry.dir, 'api'), { recursive: true })
  const lines = []
  const config = configOf(entry)
  const result = Extractor.invoke(config, {
    compilerState: compilerStateOf(entry, config),
    localBuild: update,
    messageCallback: (message) => {
      message.handled = true
      if (message.logLevel !== 'warning' && message.logLevel !== 'error') return
      if (message.messageId === 'console-api-report-changed') return // reported below
      if (message.messageId.startsWith('console-api-report-')) return // reported below
      if (reachableFromSibling(message, entry.pkg, exported)) return
      warnings++
      byKind.set(message.messageId, (byKind.get(message.messageId) ?? 0) + 1)
      const where = message.sourceFilePath
        ? ` (${message.sourceFilePath.replace(ROOT, '')}:${message.sourceFileLine})`
        : ''
      lines.push(`  ${message.messageId}: ${message.text}${where}`)
    },
  })
  const label = `${entry.pkg} ${entry.name}`
  if (result.apiReportChanged && !update) {
    changed++
    console.log(`${label}: the API report differs from api/${entry.name}.api.md`)
  } else if (result.errorCount > 0) {
    changed++
    console.log(`${label}: api-extractor failed`)
  } else {
    console.log(`${label}: ${result.apiReportChanged ? 'report rewritten' : 'ok'}`)
  }
  for (const line of lines) console.log(line)
}
const kinds = [...byKind].sort((a, b) => b[1] - a[1]).map(([id, n]) => `${n} ${id}`)
console.log(`api-extractor warnings: ${kinds.join(', ') || 'none'}`)
if (warnings > 0) {
  console.log(
    `${warnings} TSDoc/api-extractor warning(s): document the name, export the type or fix the \`{@link}\``,
  )
}
if (changed > 0) {
  console.log(
    `${changed} API report(s) differ: if the change is intended, run \`pnpm api:update\`, commit the reports and add a changeset`,
  )
}
if (changed > 0 || warnings > 0) process.exit(1)
