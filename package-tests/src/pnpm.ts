/**
 * The pinned pnpm (the root `package.json`'s `packageManager`), the one `npx --yes pnpm@…` runs:
 * found once through npx, then run directly. Each `npx` start cost about 1.5 s of CPU on top of
 * pnpm's own (npm loads, reads its config and checks its cache before starting the package's
 * bin), more than a third of a small `pnpm add`; the package tests run pnpm some twenty times.
 */
import { readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { run } from './consumer.js'
import { ROOT } from './workspace.js'

/** `pnpm@<version>`, as the root `package.json` pins it. */
const PACKAGE_MANAGER = (
  JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { packageManager: string }
).packageManager

let found: Promise<string> | undefined

/**
 * The path of the pinned pnpm's bin, in npx's cache (`…/_npx/<hash>/node_modules/.bin/pnpm`,
 * fetched there first if it is not yet): what `npx --yes pnpm@…` starts. Run it as a command.
 */
export function pinnedPnpm(): Promise<string> {
  found ??= run('npx', ['--yes', '-p', PACKAGE_MANAGER, '-c', 'command -v pnpm'], {
    // not in the workspace: npx would look at its package.json first
    cwd: tmpdir(),
    timeoutMs: 240_000,
  }).then(({ stdout }) => {
    const bin = stdout.trim()
    if (!bin.startsWith('/')) throw new Error(`npx found no pnpm bin: ${JSON.stringify(stdout)}`)
    return bin
  })
  return found
}

/** `word` quoted for `sh` (a path with spaces, say). */
export function shellQuote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`
}
