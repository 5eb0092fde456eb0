/**
 * A package README's install lines, run as a user runs them: in an empty folder, with pnpm
 * (strict: a package is importable only when the app itself depends on it) or npm, against the
 * local registry of `local-registry.ts` for the `@contextkit` scope.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { readReadmeExample } from '../../test-utils/readme-example.js'
import { NO_DATABASE, needsDatabase, run, runExampleAsEsm } from './consumer.js'
import { pinnedPnpm, shellQuote } from './pnpm.js'
import { ROOT, type WorkspacePackage } from './workspace.js'

export type Manager = 'pnpm' | 'npm'

/** One `pnpm add …` / `npm i …` line of a README. */
export interface InstallCommand {
  /** The line as written (comment removed). */
  line: string
  dev: boolean
  /** Package specs, in order (`@contextkit/core`, `zod`, `pg@8`). */
  specs: string[]
}

const INSTALL = /^(?:pnpm add|npm (?:i|install))(?=\s)/

/**
 * The install commands of a README: every line of the first ```sh block that holds a
 * `pnpm add` or `npm i` line (comments after `#` dropped). Throws when that block holds another
 * command, or when there is no such block.
 */
export function readInstallCommands(readme: string): InstallCommand[] {
  for (const block of readme.matchAll(/```sh\n([\s\S]*?)\n```/g)) {
    const lines = block[1]!
      .split('\n')
      .map((l) => l.replace(/\s#.*$/, '').trim())
      .filter((l) => l.length > 0)
    if (!lines.some((l) => INSTALL.test(l))) continue
    return lines.map((line) => {
      const m = INSTALL.exec(line)
      if (!m) throw new Error(`install block line is not an install command: ${line}`)
      const words = line.slice(m[0].length).trim().split(/\s+/)
      const flags = words.filter((w) => w.startsWith('-'))
      for (const flag of flags) {
        if (flag !== '-D') throw new Error(`install line flag ${flag} is not understood: ${line}`)
      }
      return { line, dev: flags.length > 0, specs: words.filter((w) => !w.startsWith('-')) }
    })
  }
  throw new Error('the README has no ```sh block with a `pnpm add` or `npm i` line')
}

/** `pnpm add …` or `npm install …` for `command`, with the pinned pnpm. */
async function argv(manager: Manager, command: InstallCommand): Promise<[string, string[]]> {
  const dev = command.dev ? ['-D'] : []
  if (manager === 'npm') {
    return [
      'npm',
      [
        'install',
        '--no-audit',
        '--no-fund',
        '--prefer-offline',
        '--loglevel=error',
        // npm's default, which a user's config may turn off (this machine's ~/.npmrc does, and
        // npx hands it on in npm_config_*): the lockfile says where each package came from
        // (`resolved`: consumer.test.ts checks it is the local registry)
        '--omit-lockfile-registry-resolved=false',
        ...dev,
        ...command.specs,
      ],
    ]
  }
  return [
    await pinnedPnpm(),
    ['add', '--prefer-offline', '--reporter=silent', ...dev, ...command.specs],
  ]
}

/**
 * Make an empty app in `dir` (a `package.json` and an `.npmrc` sending `@contextkit` to
 * `npmrc`'s registry) and run `commands` in it, one after the other, with `manager`.
 */
export async function runInstallCommands(
  dir: string,
  manager: Manager,
  commands: readonly InstallCommand[],
  npmrc: string,
): Promise<void> {
  await mkdir(dir, { recursive: true })
  const app = { name: 'app', version: '1.0.0', private: true, type: 'module' }
  await writeFile(join(dir, 'package.json'), `${JSON.stringify(app, null, 2)}\n`)
  // pnpm's metadata cache is shared by the apps of one run only (the registry's port changes
  // between runs, and a stale packument of an earlier run must never be read)
  const cache = manager === 'pnpm' ? `cache-dir=${join(dirname(dir), '.pnpm-cache')}\n` : ''
  await writeFile(join(dir, '.npmrc'), `${npmrc}${cache}`)
  for (const command of commands) {
    const [bin, args] = await argv(manager, command)
    await run(bin, args, { cwd: dir, timeoutMs: 240_000 })
  }
}

/**
 * Run the README example of `pkg` in the app `dir` (installed before): its TypeScript types
 * erased, nothing else changed. Resolves to what each `console.log` printed and what the README
 * says it prints.
 */
export async function runReadmeExampleIn(
  pkg: WorkspacePackage,
  dir: string,
): Promise<{ logs: string[]; expected: string[]; skipped?: string }> {
  const { code, expected } = await readReadmeExample(pkg.dir)
  // as consumer.test.ts does: an example that needs a database is run only where there is one
  if (needsDatabase(code) && !process.env.CONTEXTKIT_TEST_POSTGRES_URL)
    return { logs: [], expected, skipped: NO_DATABASE }
  return { logs: await runExampleAsEsm({ dir, code }), expected }
}

/** The install commands of `pkg`'s README. */
export async function packageInstallCommands(pkg: WorkspacePackage): Promise<InstallCommand[]> {
  return readInstallCommands(await readFile(join(pkg.dir, 'README.md'), 'utf8'))
}

/**
 * Each package with its README's install commands, the most packages to install first: those
 * installs take longest, and started last they would hold up the end of the run.
 */
export async function plannedInstalls(
  packages: readonly WorkspacePackage[],
): Promise<{ pkg: WorkspacePackage; commands: InstallCommand[] }[]> {
  const planned = await Promise.all(
    packages.map(async (pkg) => ({ pkg, commands: await packageInstallCommands(pkg) })),
  )
  const size = (commands: InstallCommand[]) => commands.reduce((n, c) => n + c.specs.length, 0)
  return planned.sort((x, y) => size(y.commands) - size(x.commands))
}

/**
 * The lines of the ```sh block after `marker` in `readme` (comments after `#` dropped). Throws
 * when the marker or its block is missing.
 */
export function readMarkedLines(readme: string, marker: string): string[] {
  const at = readme.indexOf(marker)
  if (at < 0) throw new Error(`the README has no ${marker} marker`)
  const block = /^```sh\n([\s\S]*?)\n```/m.exec(readme.slice(at + marker.length).trimStart())
  if (!block) throw new Error(`no \`\`\`sh block right after ${marker}`)
  return block[1]!
    .split('\n')
    .map((l) => l.replace(/\s#.*$/, '').trim())
    .filter((l) => l.length > 0)
}

/**
 * Make an empty app in `dir` and run `lines` in it through `sh`, as written: only a leading
 * `pnpm` becomes the pinned pnpm (the one `npx --yes pnpm@…` runs), as the README's own commands
 * run it.
 */
export async function runReadmeLines(dir: string, lines: readonly string[]): Promise<void> {
  await mkdir(dir, { recursive: true })
  const app = { name: 'my-app', version: '1.0.0', private: true, type: 'module' }
  await writeFile(join(dir, 'package.json'), `${JSON.stringify(app, null, 2)}\n`)
  const pnpm = shellQuote(await pinnedPnpm())
  for (const line of lines) {
    const command = line.replace(/^pnpm /, `${pnpm} `)
    await run('sh', ['-c', command], { cwd: dir, timeoutMs: 240_000 })
  }
}

/**
 * Run the root README's example under `marker` in the app `dir`, as {@link runReadmeExampleIn}
 * does a package's.
 */
export async function runRootExampleIn(
  marker: string,
  dir: string,
): Promise<{ logs: string[]; expected: string[] }> {
  const { code, expected } = await readReadmeExample(ROOT, marker)
  return { logs: await runExampleAsEsm({ dir, code }), expected }
}
