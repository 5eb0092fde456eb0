/**
 * The packed packages of this test run, made once and shared: the first test file that asks
 * runs `pnpm pack:all`'s packing (`scripts/pack-all.mjs`) while holding core's file lock; the
 * others wait on that lock and find them there. They sit in `<base>/contextkit/packs`, so an app
 * in `<base>/<app>` installs them with the README's literal `../contextkit/packs/…` lines.
 */
import { existsSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { inject } from 'vitest'
import { withFileLock } from '../../packages/core/src/node.js'
import { packAll } from '../../scripts/pack-all.mjs'

/** Longest wait for another file's packing (it takes about half a minute on a quiet machine). */
const WAIT_MS = 600_000

/** Where this run's shared tarballs are, and the folder apps are made beside them in. */
export interface SharedPacks {
  /** `<base>/contextkit/packs`: one `contextkit-<name>.tgz` per package. */
  packs: string
  /** `<base>`: an app made here reaches the tarballs as `../contextkit/packs/`. */
  base: string
}

/** This run's packed packages, packing them first if no file has yet. */
export async function sharedPacks(): Promise<SharedPacks> {
  const base = inject('packsBase')
  const packs = join(base, 'contextkit', 'packs')
  const done = join(base, 'packed')
  await withFileLock(
    join(base, 'pack.lock'),
    async () => {
      if (existsSync(done)) return
      await packAll(packs)
      await writeFile(done, '')
    },
    { timeoutMs: WAIT_MS },
  )
  return { packs, base }
}
