// Every publishable package as an npm user gets it: in an empty folder outside the workspace, its
// README's install lines run with npm, the `@contextkit` scope served by a local registry from the
// packed tarballs (`pack:all`; everything else from the real registry). In that app, the
// lockfile must hold exactly the package's `@contextkit` closure (and a dev tool its example
// runs), each from the local registry; the README example must run verbatim as ESM and print what
// it says; every entry must `require()` from CommonJS; the example must typecheck with
// moduleResolution nodenext and bundler; a Node root must serve its Node-only API.
// install-lines.test.ts runs the same lines with pnpm, in a file of its own: vitest's two workers
// run the two side by side (merged into one file, which the other files then waited beside, the
// package tests took as long or longer). Needs the packages built (`pnpm test` builds first) and
// the npm registry for third-party dependencies (zod, papaparse, …).
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { packFileName } from '../../scripts/pack-all.mjs'
import { NODE_BUILD_DIR } from '../../tsup.base.js'
import {
  type Consumer,
  consumerIn,
  lockedContextkit,
  NO_DATABASE,
  needsDatabase,
  type RunResult,
  requireFromCommonJs,
  runExampleAsEsm,
} from './consumer.js'
import { plannedInstalls, runInstallCommands } from './install-lines.js'
import { type LocalRegistry, servePacks } from './local-registry.js'
import { importNodeRoot, NODE_ROOT_IMPORTS, typecheckNodeRoot } from './node-root.js'
import { sharedPacks } from './packs.js'
import { held, limiter } from './tasks.js'
import { linkTypes, stopTypechecker, typecheckExample } from './typecheck.js'
import { hasNodeRoot, publishablePackages, ROOT } from './workspace.js'

const packages = publishablePackages()
let work = ''
let registry: LocalRegistry | undefined

/** Has a Node root: its root's `node` branch adds `./node` (see "Package shape"). */
const hasNode = (name: string) => packages.some((p) => p.json.name === name && hasNodeRoot(p))
const withNode = packages.filter((p) => hasNode(p.json.name)).map((p) => p.json.name)

/** The checks of one package, started as soon as its app is installed. */
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

/**
 * Start the checks of package `name` in the app `consumer` resolves to: those that run Node in a
 * `slot`, ahead of the installs waiting there; the typechecks in typecheck.ts's one process (a
 * core's worth), not in a slot, so they run beside the installs instead of holding them up.
 */
function startChecks(
  name: string,
  consumer: Promise<Consumer>,
  slot: ReturnType<typeof limiter>,
): Checks {
  const after = <T>(fn: (c: Consumer) => Promise<T>) =>
    held(consumer.then((c) => slot(() => fn(c), true)))
  const typecheck = <T>(fn: (c: Consumer) => Promise<T>) => held(consumer.then(fn))
  return {
    consumer,
    esm: after(runExampleAsEsm),
    cjs: after(requireFromCommonJs),
    nodenext: typecheck((c) => typecheckExample(c, 'nodenext')),
    bundler: typecheck((c) => typecheckExample(c, 'bundler')),
    nodeRoot: hasNode(name)
      ? {
          run: after(importNodeRoot),
          nodenext: typecheck((c) => typecheckNodeRoot(c, 'nodenext')),
          bundler: typecheck((c) => typecheckNodeRoot(c, 'bundler')),
        }
      : undefined,
  }
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'ck-consumer-'))
  expect(relative(ROOT, work).startsWith('..')).toBe(true) // outside the workspace
  registry = await servePacks((await sharedPacks()).packs)
  const { npmrc } = registry
  // Four at a time: the installs wait on the registries as much as on the two cores (and
  // install-lines.test.ts runs as many beside these); the longest first.
  const slot = limiter(4)
  for (const { pkg, commands } of await plannedInstalls(packages)) {
    const dir = join(work, pkg.folder)
    const consumer = held(
      slot(async () => {
        await runInstallCommands(dir, 'npm', commands, npmrc)
        const c = await consumerIn(pkg, packages, dir)
        await linkTypes(c)
        return c
      }),
    )
    checks.set(pkg.json.name, startChecks(pkg.json.name, consumer, slot))
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
  await registry?.close()
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
  '%s root in Node, installed with npm',
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
  "%s, the README's install lines run with npm",
  (name) => {
    const check = () => checks.get(name)!

    test('the lockfile holds its own and its @contextkit dependencies’ (and a dev tool’s its example runs), each from the local registry', async () => {
      const c = await check().consumer
      const locked = await lockedContextkit(c.dir)
      expect(Object.keys(locked).sort()).toEqual([...c.contextkit].sort())
      for (const [pkg, resolved] of Object.entries(locked)) {
        expect(resolved, pkg).toBe(`${registry!.url}-/${packFileName(pkg)}`)
      }
    }, 600_000)

    test('its README example runs verbatim as ESM and prints what it says', async (ctx) => {
      const c = await check().consumer
      if (needsDatabase(c.code) && !process.env.CONTEXTKIT_TEST_POSTGRES_URL)
        ctx.skip(true, NO_DATABASE)
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
