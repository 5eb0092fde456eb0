// The pure entries (every entry not listed in `contextkit.nodeOnly`) bundle for browsers with no
// Node built-in anywhere in their module graph, evaluate in a scope that has only web globals,
// and each README states what importing one function costs (within 15% + 0.3 kB).
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { createContext, runInContext } from 'node:vm'
import { afterAll, describe, expect, test } from 'vitest'
import { bundle, linkPackages } from './bundle.js'
import { measureSize, NO_SIZE, nodeOnlyRoot, readDocumentedSize, sizeParagraph } from './sizes.js'
import { hasNodeRoot, publishablePackages } from './workspace.js'

const packages = publishablePackages()
const links = linkPackages(packages)
afterAll(() => links.dispose())

const pureEntries = packages.flatMap((p) => p.entries.filter((e) => !e.nodeOnly))

/** The globals a browser or an edge runtime offers, and nothing from Node. */
function webGlobals(): Record<string, unknown> {
  const names = [
    'console',
    'crypto',
    'TextEncoder',
    'TextDecoder',
    'URL',
    'URLSearchParams',
    'AbortController',
    'AbortSignal',
    'EventTarget',
    'Event',
    'setTimeout',
    'clearTimeout',
    'queueMicrotask',
    'structuredClone',
    'atob',
    'btoa',
    'fetch',
    'Headers',
    'Request',
    'Response',
    'ReadableStream',
    'WritableStream',
    'TransformStream',
    'performance',
  ] as const
  const scope: Record<string, unknown> = {}
  for (const name of names) scope[name] = (globalThis as Record<string, unknown>)[name]
  return scope
}

test('the root of every package but the Node-only ones is a pure entry', () => {
  expect(pureEntries.map((e) => e.specifier)).toContain('@contextkit/core')
  expect(pureEntries.map((e) => e.specifier)).toContain('@contextkit/formatters')
})

describe.each(pureEntries.map((e) => [e.specifier, e] as const))('%s', (specifier) => {
  test('bundles for platform browser without a single Node built-in', async () => {
    const result = await bundle(`export * from '${specifier}'`, {
      nodeModules: links.nodeModules,
      platform: 'browser',
    })
    expect(result.nodeImports).toEqual([])
    expect(result.minBytes).toBeGreaterThan(0)
  })

  test('evaluates with web globals only (no process, Buffer, require)', async () => {
    const result = await bundle(
      `import * as entry from '${specifier}'; globalThis.__entry = entry`,
      { nodeModules: links.nodeModules, platform: 'browser', format: 'iife' },
    )
    const scope = createContext(webGlobals())
    runInContext(result.code, scope, { filename: `${specifier} (browser bundle)` })
    const exported = Object.keys((scope as { __entry?: object }).__entry ?? {})
    expect(exported.length).toBeGreaterThan(0)
  })
})

// A package with a Node root (`src/index.node.ts`) has a conditional root: Node (and bundlers
// targeting Node) take its `node` branch, the pure API plus the Node-only one; browsers take
// `default`, pure. Core has `./node` but no Node root: its root is the same in every runtime.
const withNode = packages.filter((p) => p.entries.some((e) => e.subpath === './node'))
const withNodeRoot = withNode.filter(hasNodeRoot)
const sameRoot = withNode.filter((p) => !hasNodeRoot(p))

test('the packages with Node-only parts are found, core among those without a Node root', () => {
  expect(withNodeRoot.map((p) => p.json.name)).toEqual(
    expect.arrayContaining(['@contextkit/prefill', '@contextkit/resumption']),
  )
  expect(sameRoot.map((p) => p.json.name)).toContain('@contextkit/core')
})

const exportsOf = async (specifier: string, platform: 'browser' | 'node') =>
  (await bundle(`export * from '${specifier}'`, { nodeModules: links.nodeModules, platform }))
    .exports

describe.each(withNodeRoot.map((p) => [p.json.name] as const))('%s root, by condition', (name) => {
  test('for browsers it is the default branch: none of the Node-only names; under node, all of them', async () => {
    const nodeOnly = await exportsOf(`${name}/node`, 'node')
    const browserRoot = await exportsOf(name, 'browser')
    const nodeRoot = await exportsOf(name, 'node')
    const onlyInNode = nodeOnly.filter((n) => !browserRoot.includes(n))
    expect(onlyInNode.length).toBeGreaterThan(0)
    expect(nodeRoot).toEqual([...new Set([...browserRoot, ...nodeOnly])].sort())
  })
})

describe.each(sameRoot.map((p) => [p.json.name] as const))('%s root, by condition', (name) => {
  test('is the same under node and for browsers, with none of the Node-only names', async () => {
    const nodeOnly = await exportsOf(`${name}/node`, 'node')
    const browserRoot = await exportsOf(name, 'browser')
    expect(await exportsOf(name, 'node')).toEqual(browserRoot)
    expect(browserRoot.filter((n) => nodeOnly.includes(n))).toEqual([])
  })
})

const sized = packages.filter((p) => !nodeOnlyRoot(p))
const unsized = packages.filter(nodeOnlyRoot)

test.each(unsized.map((p) => [p.json.name, p] as const))(
  '%s README (Node-only root) says why it states no bundle size',
  (_, pkg) => {
    const readme = readFileSync(join(pkg.dir, 'README.md'), 'utf8')
    expect(readDocumentedSize(readme)).toBeNull()
    expect(sizeParagraph(readme)?.text.startsWith(NO_SIZE)).toBe(true)
  },
)

describe.each(sized.map((p) => [p.json.name, p] as const))('%s README', (_, pkg) => {
  test('states the bundle size of importing one function, as measured', async () => {
    const documented = readDocumentedSize(readFileSync(join(pkg.dir, 'README.md'), 'utf8'))
    expect(documented, 'README.md needs the <!-- bundle-size --> paragraph').not.toBeNull()
    const measured = await measureSize(pkg, links.nodeModules)
    expect(documented?.platform).toBe(measured.platform)
    const close = (kb: number, bytes: number) => Math.abs(kb * 1000 - bytes) <= bytes * 0.15 + 300
    const update = 'run `pnpm --filter @contextkit/package-tests sizes --write`'
    expect(
      close(documented!.probeKB, measured.probeBytes),
      `${update}: ${measured.probeBytes} B`,
    ).toBe(true)
    expect(
      close(documented!.entryKB, measured.entryBytes),
      `${update}: ${measured.entryBytes} B`,
    ).toBe(true)
    // Tree-shaking works: one function of a package costs less than the whole entry.
    if (measured.platform === 'browser' && pkg.entries.length > 1) {
      expect(measured.probeBytes).toBeLessThan(measured.entryBytes)
    }
  })
})
