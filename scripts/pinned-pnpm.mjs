// The pinned pnpm (the root package.json's `packageManager`, e.g. `pnpm@10.34.9`), the one
// `npx --yes pnpm@…` runs: found once through npx, then run directly. Each `npx` start costs about
// 1.5 s of CPU on top of pnpm's own (npm loads, reads its config and checks its cache before
// starting the package's bin); the release dry run and the package tests run pnpm a dozen times
// or more. CI's machine may have no global pnpm, so this is the way to reach it.
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const exec = promisify(execFile)

/** `pnpm@<version>`, as the root package.json pins it. */
export const PACKAGE_MANAGER = JSON.parse(
  readFileSync(join(ROOT, 'package.json'), 'utf8'),
).packageManager

let found

/** Ask npx where the bin of `PACKAGE_MANAGER` is (fetching it into its cache if need be). */
async function findPnpm() {
  const args = ['--yes', '-p', PACKAGE_MANAGER, '-c', 'command -v pnpm']
  // in tmpdir: in the workspace npx would look at its package.json first. Without
  // npm_config_package, which `npx -p node@22 …` leaves behind: kept, npx would look for pnpm
  // inside that package.
  const env = { ...process.env }
  delete env.npm_config_package
  const { stdout } = await exec('npx', args, { cwd: tmpdir(), env, timeout: 240_000 })
  const bin = stdout.trim()
  if (!bin.startsWith('/')) throw new Error(`npx found no pnpm bin: ${JSON.stringify(stdout)}`)
  return bin
}

/**
 * The path of the pinned pnpm's bin, in npx's cache (`…/_npx/<hash>/node_modules/.bin/pnpm`,
 * fetched there first if it is not yet): what `npx --yes pnpm@…` starts. Run it as a command.
 */
export function pinnedPnpm() {
  found ??= findPnpm()
  return found
}
