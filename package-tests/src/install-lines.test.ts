// Every package README's literal install line, as a new user runs it: the packed tarballs served
// by a local registry for the `@contextkit` scope (everything else from the real registry), an
// empty folder, the README's `pnpm add …` / `npm i …` lines run with pnpm (strict: only what the
// app depends on is importable), then the README's example, which must print what the README
// says. The same lines run with npm in consumer.test.ts, with the checks of an npm user's app
// beside the example. The root README's lines run here with both. Needs the packages built
// (`pnpm test` builds first) and the npm registry.
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import {
  type InstallCommand,
  type Manager,
  plannedInstalls,
  readInstallCommands,
  readMarkedLines,
  runInstallCommands,
  runReadmeExampleIn,
  runReadmeLines,
  runRootExampleIn,
} from './install-lines.js'
import { type LocalRegistry, servePacks } from './local-registry.js'
import { sharedPacks } from './packs.js'
import { held, limiter } from './tasks.js'
import { publishablePackages, ROOT } from './workspace.js'

const packages = publishablePackages()
const MANAGERS: Manager[] = ['pnpm', 'npm']
let work = ''
let registry: LocalRegistry | undefined
/** Each package's pnpm install and example, started in beforeAll, awaited by its test. */
const runs = new Map<string, Promise<{ logs: string[]; expected: string[]; skipped?: string }>>()
let formattersWithoutCore: Promise<unknown> = Promise.resolve()
/** The root README's install lines (from the packed tarballs) and its smallest agent, per manager. */
const rootRuns = new Map<
  Manager,
  Promise<{ lines: string[]; logs: string[]; expected: string[] }>
>()

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'ck-install-lines-'))
  expect(relative(ROOT, work).startsWith('..')).toBe(true) // outside the workspace
  const { packs, base } = await sharedPacks()
  // the root README's lines, before anything is published: from the tarballs of `pack:all`,
  // in an app beside the clone (`../contextkit/packs/…`), then its smallest agent
  const rootReadme = await readFile(join(ROOT, 'README.md'), 'utf8')
  registry = await servePacks(packs)
  const npmrc = registry.npmrc
  // Installs wait on the network more than on the two CPUs: four at a time (and as many in
  // consumer.test.ts beside these), the longest first.
  const limit = limiter(4)
  for (const manager of MANAGERS) {
    const lines = readMarkedLines(rootReadme, `<!-- install:${manager} -->`)
    const dir = join(base, `my-app-${manager}`)
    const task = limit(async () => {
      await runReadmeLines(dir, lines)
      return { lines, ...(await runRootExampleIn('<!-- smallest-agent -->', dir)) }
    })
    rootRuns.set(manager, held(task))
  }
  for (const { pkg, commands } of await plannedInstalls(packages)) {
    const dir = join(work, 'pnpm', pkg.folder)
    const task = limit(async () => {
      await runInstallCommands(dir, 'pnpm', commands, npmrc)
      return runReadmeExampleIn(pkg, dir)
    })
    runs.set(pkg.json.name, held(task))
  }
  // The line formatters' README had before: the package alone, though its example imports core.
  const formatters = packages.find((p) => p.json.name === '@contextkit/formatters')!
  const alone: InstallCommand = {
    line: 'pnpm add @contextkit/formatters',
    dev: false,
    specs: ['@contextkit/formatters'],
  }
  const dir = join(work, 'pnpm-without-core')
  formattersWithoutCore = held(
    limit(async () => {
      await runInstallCommands(dir, 'pnpm', [alone], npmrc)
      return runReadmeExampleIn(formatters, dir)
    }),
  )
}, 600_000)

afterAll(async () => {
  await registry?.close()
  if (work) await rm(work, { recursive: true, force: true })
}, 120_000)

test.each(MANAGERS)(
  "the root README's %s lines install the smallest agent from the pack:all tarballs, and it runs",
  async (manager) => {
    const { lines, logs, expected } = await rootRuns.get(manager)!
    expect(lines.some((l) => l.includes('../contextkit/packs/contextkit-agent-loop.tgz'))).toBe(
      true,
    )
    expect(expected.length).toBeGreaterThan(0)
    expect(logs).toEqual(expected)
  },
  600_000,
)

describe.each(packages.map((p) => [p.json.name] as const))('%s', (name) => {
  test("the README's install lines with pnpm, then its example, print what the README says", async (ctx) => {
    const { logs, expected, skipped } = await runs.get(name)!
    if (skipped) ctx.skip(true, skipped)
    expect(expected.length).toBeGreaterThan(0)
    expect(logs).toEqual(expected)
  }, 600_000)
})

test('a line that leaves out a package the example imports fails under pnpm (as formatters’ did)', async () => {
  await expect(formattersWithoutCore).rejects.toThrow(
    /ERR_MODULE_NOT_FOUND[\s\S]*@contextkit\/core|Cannot find package '@contextkit\/core'/,
  )
}, 600_000)

describe('readInstallCommands', () => {
  test('reads every line of the first install block, comments and -D understood', () => {
    const readme = [
      '# x',
      '```sh',
      'echo not this block',
      '```',
      '```sh',
      'pnpm add @contextkit/a @contextkit/core zod   # the package',
      'npm i -D @contextkit/testkit',
      '```',
    ].join('\n')
    expect(readInstallCommands(readme)).toEqual([
      {
        line: 'pnpm add @contextkit/a @contextkit/core zod',
        dev: false,
        specs: ['@contextkit/a', '@contextkit/core', 'zod'],
      },
      { line: 'npm i -D @contextkit/testkit', dev: true, specs: ['@contextkit/testkit'] },
    ])
  })

  test('refuses a block mixing other commands, unknown flags, or no install block at all', () => {
    expect(() => readInstallCommands('```sh\npnpm add a\nrm -rf x\n```')).toThrow(/rm -rf x/)
    expect(() => readInstallCommands('```sh\npnpm add --global a\n```')).toThrow(/--global/)
    expect(() => readInstallCommands('no blocks')).toThrow(/no ```sh block/)
  })
})
