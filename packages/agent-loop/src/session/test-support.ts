import { randomUUID } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

/** A temporary directory, removed by the returned `cleanup`. */
export async function tempDir(label: string): Promise<{ dir: string; cleanup(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), `ck-${label}-`))
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) }
}

/**
 * Bundle a `*.fixture.ts` file of this folder (and what it imports) into one plain `.mjs` file
 * that `node` runs without a loader, in `outDir`.
 */
export async function bundleFixture(name: string, outDir: string): Promise<string> {
  const outfile = join(outDir, `${name}-${randomUUID()}.mjs`)
  await build({
    entryPoints: [fileURLToPath(new URL(`./${name}.fixture.ts`, import.meta.url))],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'silent',
  })
  return outfile
}
