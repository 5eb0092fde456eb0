// The root of @contextkit/core stays small and the same in every runtime (issue 40): at most 100
// value names, no Node built-in anywhere in its module graph (nor in `/store`'s), and each name
// served by one entry only. What only stores need is in `/store`, what needs Node in `/node`
// (the rule: "exports" in docs/architecture.md).
import { readFileSync } from 'node:fs'
import { isBuiltin } from 'node:module'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { expect, test } from 'vitest'
import { reachableSources } from '../../../tsup.base.js'
import * as cache from './cache.js'
import * as root from './index.js'
import * as node from './node.js'
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

test.each(['src/index.ts', 'src/store.ts', 'src/cache.ts'])(
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

test('a value name is served by one entry: the root, /node, /store or /cache', () => {
  const entries = { root, node, store, cache }
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
      'ApprovalStatusSchema',
      'SESSION_FORMAT_VERSION',
      'SessionApprovalEntrySchema',
      'SessionCompactionEntrySchema',
      'SessionCustomEntrySchema',
      'SessionEntrySchema',
      'SessionHeaderEntrySchema',
      'SessionIdSchema',
      'SessionMessageEntrySchema',
      'isNormalSessionEntry',
      'resumeTailBoundary',
      'sessionHeader',
      // the lease protocol (a store implements it, a runner holds it)
      'DEFAULT_SESSION_LEASE_TTL_MS',
      'DEFAULT_SESSION_WAIT_MS',
      'MAX_SESSION_LEASE_TTL_MS',
      'SessionLeaseRequestSchema',
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
