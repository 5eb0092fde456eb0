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

/** Bundle the crash writer into one plain `.mjs` file that `node` runs without a loader. */
export async function bundleCrashWriter(outDir: string): Promise<string> {
  const outfile = join(outDir, `crash-writer-${randomUUID()}.mjs`)
  await build({
    entryPoints: [fileURLToPath(new URL('./crash-writer.fixture.ts', import.meta.url))],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'silent',
  })
  return outfile
}
