// The root of @contextkit/core stays small and the same in every runtime (issue 40): at most 100
// value names, no Node built-in anywhere in its module graph (nor in `/store`'s), and each name
// served by one entry only. What only stores need is in `/store`, what needs Node in `/node`,
// the zod schemas in `/schemas`: the root, `/store`, `/cache` and `/check` load no zod (issue 46)
// (the rule: "exports" in docs/architecture.md).
import { readFileSync } from 'node:fs'
import { isBuiltin } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { expect, test } from 'vitest'
import { reachableSources } from '../../../tsup.base.js'
import * as cache from './cache.js'
import * as check from './check.js'
import * as root from './index.js'
import * as node from './node.js'
import * as schemas from './schemas.js'
import * as store from './store.js'

/** The most value names the root may export (issue 40's budget for what a user scans). */
const ROOT_VALUE_BUDGET = 100

const PACKAGE = fileURLToPath(new URL('..', import.meta.url))

/** Every import specifier of a source file, relative ones included. */
function importsOf(file: string): string[] {
  const { importedFiles } = ts.preProcessFile(readFileSync(join(PACKAGE, file), 'utf8'), true, true)
  return importedFiles.map((f) => f.fileName)
}

test(`the root exports at most ${ROOT_VALUE_BUDGET} value names`, () => {
  const values = Object.keys(root)
  expect(values.length).toBeGreaterThan(50) // the import worked: the root is not empty
  expect(values.length, values.join(', ')).toBeLessThanOrEqual(ROOT_VALUE_BUDGET)
})

/**
 * The source files `entry` loads when it runs: relative imports followed, type-only ones
 * (`import type`, `export type`) skipped, since the build erases them; and the package
 * specifiers each of them imports.
 */
function loadedGraph(entry: string): { files: string[]; packages: Map<string, string[]> } {
  const seen = new Set<string>()
  const packages = new Map<string, string[]>()
  const stack = [entry]
  while (stack.length > 0) {
    const file = stack.pop()!
    if (seen.has(file)) continue
    seen.add(file)
    const text = readFileSync(join(PACKAGE, file), 'utf8')
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest)
    for (const statement of source.statements) {
      const typeOnly = ts.isImportDeclaration(statement)
        ? statement.importClause?.isTypeOnly === true
        : ts.isExportDeclaration(statement) && statement.isTypeOnly
      const specifier = (statement as { moduleSpecifier?: ts.Expression }).moduleSpecifier
      if (typeOnly || !specifier || !ts.isStringLiteral(specifier)) continue
      const name = specifier.text
      if (name.startsWith('.')) stack.push(join(dirname(file), name.replace(/\.js$/, '.ts')))
      else packages.set(name, [...(packages.get(name) ?? []), file])
    }
  }
  return { files: [...seen].sort(), packages }
}

test.each(['src/index.ts', 'src/store.ts', 'src/cache.ts', 'src/check.ts'])(
  '%s loads no zod: its checks are the zod-free ones, the schemas are in /schemas',
  (entry) => {
    const { files, packages } = loadedGraph(entry)
    expect(files).toContain(entry)
    const zod = [...packages].filter(([name]) => name === 'zod' || name.startsWith('zod/'))
    expect(zod).toEqual([])
  },
)

test('/schemas is where the zod schemas are', () => {
  expect([...loadedGraph('src/schemas.ts').packages.keys()]).toContain('zod')
  expect(Object.keys(schemas).every((name) => name.endsWith('Schema'))).toBe(true)
})

test.each(['src/index.ts', 'src/store.ts', 'src/cache.ts', 'src/check.ts', 'src/schemas.ts'])(
  '%s imports no Node built-in anywhere in its module graph',
  (entry) => {
    const files = reachableSources(PACKAGE, [entry])
    expect(files).toContain(entry)
    const builtins = files.flatMap((file) =>
      importsOf(file)
        .filter((specifier) => isBuiltin(specifier))
        .map((specifier) => `${file} → ${specifier}`),
    )
    expect(builtins).toEqual([])
  },
)

test('a value name is served by one entry: the root, /node, /store, /cache, /check or /schemas', () => {
  const entries = { root, node, store, cache, check, schemas }
  const seen = new Map<string, string>()
  const twice: string[] = []
  for (const [entry, exports] of Object.entries(entries)) {
    for (const name of Object.keys(exports)) {
      const first = seen.get(name)
      if (first) twice.push(`${name} (${first}, ${entry})`)
      else seen.set(name, entry)
    }
  }
  expect(twice).toEqual([])
})

test('/store is what stores and runners need: the log format, the lease protocol, the size rule, the trace text', () => {
  expect(Object.keys(store).sort()).toEqual(
    [
      'SESSION_FORMAT_VERSION',
      'isNormalSessionEntry',
      'resumeTailBoundary',
      'sessionHeader',
      // the lease protocol (a store implements it, a runner holds it)
      'DEFAULT_SESSION_LEASE_TTL_MS',
      'DEFAULT_SESSION_WAIT_MS',
      'MAX_SESSION_LEASE_TTL_MS',
      'acquireSessionLease',
      'describeLeaseHolder',
      'hasSessionLeases',
      'keepSessionLease',
      // the size rule every store applies at append, and reading a stream back whole
      'SESSION_ENTRY_MAX_BYTES',
      'collectSession',
      'sessionEntryText',
      'utf8Length',
      // the stored text of a trace event
      'parseTraceEvent',
      'traceEventText',
    ].sort(),
  )
})
