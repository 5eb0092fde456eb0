/**
 * A consumer project outside the workspace, as a user makes one: the app a package README's
 * install lines made with npm (see `install-lines.ts`), and what is run in it: the README example
 * as ESM, `require()` of every entry from CommonJS, and the lockfile's `@contextkit` packages.
 */
import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { readFile, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import ts from 'typescript'
import { readReadmeExample } from '../../test-utils/readme-example.js'
import { isNodeBuiltin } from './bundle.js'
import { ROOT, type WorkspacePackage, workspaceClosure } from './workspace.js'

export interface RunResult {
  stdout: string
  stderr: string
}

/**
 * The environment of a user's shell: without the variables a package manager sets for scripts.
 * `npm_config_package` is what `npx -p node@22 …` leaves behind (the suite run on another Node):
 * kept, it makes every nested `npx --yes pnpm@…` look for `pnpm@…` inside that package.
 */
export function plainEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [key, value] of Object.entries(process.env)) {
    const k = key.toLowerCase()
    if (
      k.startsWith('npm_lifecycle_') ||
      k.startsWith('npm_package_') ||
      k.startsWith('pnpm_') ||
      [
        'npm_execpath',
        'npm_node_execpath',
        'npm_command',
        'npm_config_user_agent',
        'npm_config_package',
        'init_cwd',
      ].includes(k)
    ) {
      continue
    }
    env[key] = value
  }
  return env
}

/** Run a command; rejects with its output when it exits non-zero or runs out of time. */
export function run(
  command: string,
  args: readonly string[],
  options: { cwd: string; timeoutMs?: number; env?: NodeJS.ProcessEnv },
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    execFile(
      command,
      args,
      {
        cwd: options.cwd,
        env: { ...plainEnv(), ...options.env },
        timeout: options.timeoutMs ?? 300_000,
        maxBuffer: 32 * 1024 * 1024,
        encoding: 'utf8',
      },
      (error, stdout, stderr) => {
        if (error) {
          const what = `${command} ${args.join(' ')} (in ${options.cwd})`
          reject(new Error(`${what} failed: ${error.message}\n${stdout}\n${stderr}`))
        } else resolve({ stdout, stderr })
      },
    )
  })
}

/** The bare module specifiers an example imports (static and dynamic imports). */
export function importedSpecifiers(code: string): string[] {
  const found = new Set<string>()
  for (const m of code.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)['"]([^'"]+)['"]/g)) {
    const spec = m[1]!
    if (!spec.startsWith('.') && !spec.startsWith('/')) found.add(spec)
  }
  return [...found]
}

/** `@scope/name/sub` → `@scope/name`; `name/sub` → `name`. */
export function packageOf(specifier: string): string {
  const parts = specifier.split('/')
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!
}

export interface Consumer {
  pkg: WorkspacePackage
  /** The app its README's install lines made (with npm, from the local registry). */
  dir: string
  /** The README example, verbatim. */
  code: string
  expected: string[]
  /** The `@contextkit` packages the app must hold (see {@link exampleNeeds}). */
  contextkit: string[]
  /** The `@types` packages a user who typechecks the example adds (see {@link exampleNeeds}). */
  types: string[]
}

/**
 * What an app needs to run and typecheck `pkg`'s README example `code`, read from its imports:
 * - `contextkit`: `pkg` and its `@contextkit` dependencies, plus a `@contextkit` dev tool the
 *   example runs against (such as testkit's emulator) with its own dependencies;
 * - `types`: `@types/node`, and the `@types` of a peer the example imports that has no types of
 *   its own (`pg`), as `pkg`'s devDependencies pin them.
 * Throws when the example imports a package a user of `pkg` would not install.
 */
export function exampleNeeds(
  pkg: WorkspacePackage,
  all: readonly WorkspacePackage[],
  code: string,
): { contextkit: string[]; types: string[] } {
  const contextkit = workspaceClosure(pkg.json.name, all)
  const types = ['@types/node']
  const refuse = (name: string, what: string) =>
    new Error(`${pkg.json.name}'s README example imports ${name}, which is ${what}`)
  for (const spec of importedSpecifiers(code)) {
    const name = packageOf(spec)
    if (isNodeBuiltin(spec) || contextkit.includes(name) || pkg.json.dependencies?.[name]) continue
    if (name.startsWith('@contextkit/')) {
      // A dev tool the example runs against (testkit's emulator): the user installs it too.
      if (!pkg.json.devDependencies?.[name]) {
        throw refuse(name, `not even a dev dependency: a user of ${pkg.json.name} cannot run it`)
      }
      for (const extra of workspaceClosure(name, all)) {
        if (!contextkit.includes(extra)) contextkit.push(extra)
      }
    } else if (!pkg.json.peerDependencies?.[name]) {
      throw refuse(name, 'neither a dependency nor a peer dependency')
    } else if (pkg.json.devDependencies?.[`@types/${name}`]) {
      types.push(`@types/${name}`)
    }
  }
  return { contextkit, types }
}

/**
 * The consumer project of `pkg` in `dir`, an app its README's install lines made: its example
 * written there as `example.ts` (for the typechecks), with what {@link exampleNeeds} says the
 * app needs.
 */
export async function consumerIn(
  pkg: WorkspacePackage,
  all: readonly WorkspacePackage[],
  dir: string,
): Promise<Consumer> {
  const { code, expected } = await readReadmeExample(pkg.dir)
  await writeFile(join(dir, 'example.ts'), code)
  return { pkg, dir, code, expected, ...exampleNeeds(pkg, all, code) }
}

/** Every `@contextkit` package in the consumer's lockfile, with where npm got it from. */
export async function lockedContextkit(dir: string): Promise<Record<string, string>> {
  const lock = JSON.parse(await readFile(join(dir, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { resolved?: string; link?: boolean }>
  }
  const out: Record<string, string> = {}
  for (const [path, entry] of Object.entries(lock.packages)) {
    const at = path.lastIndexOf('node_modules/@contextkit/')
    if (at < 0) continue
    out[path.slice(at + 'node_modules/'.length)] = entry.resolved ?? (entry.link ? 'link' : '?')
  }
  return out
}

/** Why an example that needs a database is skipped where the tests have none. */
export const NO_DATABASE =
  'needs a PostgreSQL server: .ci/run starts one (CONTEXTKIT_TEST_POSTGRES_URL)'

/** Whether an example reads `DATABASE_URL` (it then needs a PostgreSQL server). */
export function needsDatabase(code: string): boolean {
  return code.includes('process.env.DATABASE_URL')
}

/**
 * For an example that reads `DATABASE_URL` (the worker's), a database of its own, made on the
 * PostgreSQL server `.ci/run` starts (`CONTEXTKIT_TEST_POSTGRES_URL`; left for the server's
 * removal): as a user's shell names theirs. Nothing for any other example.
 */
async function exampleDatabase(code: string): Promise<NodeJS.ProcessEnv> {
  const server = process.env.CONTEXTKIT_TEST_POSTGRES_URL
  if (!server || !needsDatabase(code)) return {}
  // pg as store-postgres has it (package-tests has no driver of its own)
  const pg = createRequire(join(ROOT, 'packages', 'store-postgres', 'package.json'))('pg')
  const name = `ck_example_${randomBytes(4).toString('hex')}`
  const admin = new pg.Client({ connectionString: server })
  await admin.connect()
  try {
    await admin.query(`CREATE DATABASE ${name}`)
  } finally {
    await admin.end()
  }
  const url = new URL(server)
  url.pathname = `/${name}`
  return { DATABASE_URL: url.href }
}

/**
 * Run the README example as an ES module: its TypeScript types erased (nothing else changed)
 * and its `console.log` calls captured one per line. Returns what each call printed.
 */
export async function runExampleAsEsm(consumer: Pick<Consumer, 'dir' | 'code'>): Promise<string[]> {
  const js = ts.transpileModule(consumer.code, {
    compilerOptions: {
      module: ts.ModuleKind.ESNext,
      target: ts.ScriptTarget.ES2022,
      verbatimModuleSyntax: true,
    },
  }).outputText
  await writeFile(join(consumer.dir, 'example.mjs'), js)
  const capture = join(consumer.dir, 'capture-console.mjs')
  await writeFile(
    capture,
    "import { format } from 'node:util'\n" +
      "console.log = (...args) => process.stdout.write(JSON.stringify(format(...args)) + '\\n')\n",
  )
  const { stdout } = await run(
    process.execPath,
    ['--import', pathToFileURL(capture).href, 'example.mjs'],
    { cwd: consumer.dir, timeoutMs: 120_000, env: await exampleDatabase(consumer.code) },
  )
  return stdout
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as string)
}

/** What {@link requireFromCommonJs} reports for one entry. */
export interface RequiredEntry {
  required: string[]
  imported: string[]
  /** `require()` and `import()` gave the very same module object. */
  same: boolean
  /** The file `require.resolve` picks, relative to the package folder. */
  file: string
}

/**
 * From a CommonJS file: `require()` each entry of the package, `import()` it too, and report the
 * export names of each, whether both gave the same module (no dual-package copy) and the file
 * Node resolves it to.
 */
export async function requireFromCommonJs(
  consumer: Consumer,
): Promise<Record<string, RequiredEntry>> {
  const script = `'use strict'
const specifiers = JSON.parse(process.argv[2])
;(async () => {
  const out = {}
  for (const specifier of specifiers) {
    const required = require(specifier)
    const imported = await import(specifier)
    out[specifier] = {
      required: Object.keys(required).sort(),
      imported: Object.keys(imported).sort(),
      same: required === imported,
      file: require('node:path').relative(
        require('node:path').dirname(require.resolve(process.argv[3] + '/package.json')),
        require.resolve(specifier),
      ),
    }
  }
  process.stdout.write(JSON.stringify(out))
})().catch((error) => {
  console.error(error)
  process.exit(1)
})
`
  await writeFile(join(consumer.dir, 'require-entries.cjs'), script)
  const specifiers = consumer.pkg.entries.map((e) => e.specifier)
  const { stdout } = await run(
    process.execPath,
    ['require-entries.cjs', JSON.stringify(specifiers), consumer.pkg.json.name],
    { cwd: consumer.dir, timeoutMs: 60_000 },
  )
  return JSON.parse(stdout) as Record<string, RequiredEntry>
}
