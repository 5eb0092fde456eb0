// Every publishable package as a user installs it: `pnpm -r pack`, then, in a folder outside the
// workspace, plain `npm install` of that package's tarball and its `@contextkit` dependencies'
// tarballs only. Its README example must run verbatim as ESM, every entry must `require()` from
// CommonJS, and the example must typecheck with moduleResolution nodenext and bundler.
// Needs the packages built (`pnpm test` builds first) and the npm registry for third-party
// dependencies (zod, papaparse, …).
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { NODE_BUILD_DIR } from '../../tsup.base.js'
import {
  type Consumer,
  installConsumer,
  lockedContextkit,
  needsDatabase,
  type RunResult,
  requireFromCommonJs,
  runExampleAsEsm,
} from './consumer.js'
import { importNodeRoot, NODE_ROOT_IMPORTS, typecheckNodeRoot } from './node-root.js'
import { sharedPacks } from './packs.js'
import { held, limiter } from './tasks.js'
import { stopTypechecker, typecheckExample } from './typecheck.js'
import { hasNodeRoot, publishablePackages, ROOT } from './workspace.js'

const packages = publishablePackages()
let work = ''

/** Has a Node root: its root's `node` branch adds `./node` (see "Package shape"). */
const hasNode = (name: string) => packages.some((p) => p.json.name === name && hasNodeRoot(p))
const withNode = packages.filter((p) => hasNode(p.json.name)).map((p) => p.json.name)

/** The checks of one package, started as soon as its consumer project is installed. */
interface Checks {
  consumer: Promise<Consumer>
  esm: Promise<string[]>
  cjs: Promise<Awaited<ReturnType<typeof requireFromCommonJs>>>
  nodenext: Promise<RunResult>
  bundler: Promise<RunResult>
  /** Only for packages with a Node root: their root as Node users import it. */
  nodeRoot?: {
    run: Promise<Awaited<ReturnType<typeof importNodeRoot>>>
    nodenext: Promise<Awaited<ReturnType<typeof typecheckNodeRoot>>>
    bundler: Promise<Awaited<ReturnType<typeof typecheckNodeRoot>>>
  }
}
const checks = new Map<string, Checks>()

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'ck-consumer-'))
  expect(relative(ROOT, work).startsWith('..')).toBe(true) // outside the workspace
  const { packs } = await sharedPacks()
  const slot = limiter(2)
  for (const pkg of packages) {
    const consumer = held(
      slot(() => installConsumer(pkg, packages, packs, join(work, 'consumers'))),
    )
    const after = <T>(fn: (c: Consumer) => Promise<T>) =>
      held(consumer.then((c) => slot(() => fn(c), true)))
    // The typechecks queue in typecheck.ts's one process (a core's worth): not in a slot, so
    // they run beside the installs instead of holding them up.
    const typecheck = <T>(fn: (c: Consumer) => Promise<T>) => held(consumer.then(fn))
    checks.set(pkg.json.name, {
      consumer,
      esm: after(runExampleAsEsm),
      cjs: after(requireFromCommonJs),
      nodenext: typecheck((c) => typecheckExample(c, 'nodenext')),
      bundler: typecheck((c) => typecheckExample(c, 'bundler')),
      nodeRoot: hasNode(pkg.json.name)
        ? {
            run: after(importNodeRoot),
            nodenext: typecheck((c) => typecheckNodeRoot(c, 'nodenext')),
            bundler: typecheck((c) => typecheckNodeRoot(c, 'bundler')),
          }
        : undefined,
    })
  }
}, 600_000)

afterAll(async () => {
  await Promise.allSettled(
    [...checks.values()].flatMap(({ nodeRoot, ...c }) => [
      ...Object.values(c),
      ...Object.values(nodeRoot ?? {}),
    ]),
  )
  stopTypechecker()
  if (work) await rm(work, { recursive: true, force: true })
}, 300_000)

test('every publishable package of packages/* is covered', () => {
  expect(packages.map((p) => p.folder)).toEqual(
    expect.arrayContaining(['core', 'formatters', 'context-metadata', 'testkit']),
  )
})

test('the packages with a Node root are the ones whose root names are listed', () => {
  expect(withNode.length).toBeGreaterThan(0)
  expect(withNode.sort()).toEqual(Object.keys(NODE_ROOT_IMPORTS).sort())
})

describe.each(withNode.map((name) => [name] as const))(
  '%s root in Node, packed and installed with npm',
  (name) => {
    const nodeRoot = () => checks.get(name)!.nodeRoot!
    const { node, pure } = NODE_ROOT_IMPORTS[name]!

    test('import { <Node-only name> } and require() both serve the Node-only API with the pure one', async () => {
      const result = await nodeRoot().run
      for (const from of [result.esm, result.cjs]) {
        expect(Object.keys(from).sort()).toEqual([...node, ...pure].sort())
        for (const [n, type] of Object.entries(from)) expect(type, n).not.toBe('undefined')
      }
      expect(result.missingFromImport).toEqual([])
      expect(result.missingFromRequire).toEqual([])
    }, 600_000)

    test('typechecks with moduleResolution nodenext, each name typed as ./node types it', async () => {
      expect(await nodeRoot().nodenext).toEqual({ notExported: [], otherErrors: [] })
    }, 600_000)

    test('with moduleResolution bundler the root keeps the pure types (no Node-only name)', async () => {
      expect(await nodeRoot().bundler).toEqual({ notExported: [...node].sort(), otherErrors: [] })
    }, 600_000)
  },
)

describe.each(packages.map((p) => [p.json.name] as const))(
  '%s, packed and installed with npm',
  (name) => {
    const check = () => checks.get(name)!

    test('only its own and its @contextkit dependencies’ tarballs (and a dev tool its example runs) are installed', async () => {
      const c = await check().consumer
      const locked = await lockedContextkit(c.dir)
      expect(Object.keys(locked).sort()).toEqual([...c.contextkit].sort())
      for (const [pkg, resolved] of Object.entries(locked)) {
        expect(resolved, pkg).toMatch(/^file:.*\.tgz$/)
      }
    }, 600_000)

    test('its README example runs verbatim as ESM and prints what it says', async (ctx) => {
      const c = await check().consumer
      if (needsDatabase(c.code) && !process.env.CONTEXTKIT_TEST_POSTGRES_URL)
        ctx.skip(
          true,
          'needs a PostgreSQL server: .ci/run starts one (CONTEXTKIT_TEST_POSTGRES_URL)',
        )
      expect(c.expected.length).toBeGreaterThan(0)
      expect(await check().esm).toEqual(c.expected)
    }, 600_000)

    test('require() from CommonJS serves every entry from the Node build, the same module as import()', async () => {
      const c = await check().consumer
      const entries = await check().cjs
      expect(Object.keys(entries)).toEqual(c.pkg.entries.map((e) => e.specifier))
      for (const [specifier, { required, imported, same, file }] of Object.entries(entries)) {
        expect(required.length, specifier).toBeGreaterThan(0)
        expect(required, specifier).toEqual(imported)
        expect(same, specifier).toBe(true)
        expect(file, specifier).toMatch(new RegExp(`^dist/${NODE_BUILD_DIR}/`))
      }
    }, 600_000)

    test.each(['nodenext', 'bundler'] as const)(
      'its README example typechecks with moduleResolution %s',
      async (resolution) => {
        const { stdout } = await check()[resolution]
        expect(stdout.trim()).toBe('')
      },
      600_000,
    )
  },
)
