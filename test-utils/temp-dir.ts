// Temporary directories and bundled child-process fixtures for the tests that run real writer
// processes (store-files' crash tests, agent-loop's session and durable-run tests).
import { randomUUID } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** A temporary directory, removed by the returned `cleanup`. */
export async function tempDir(label: string): Promise<{ dir: string; cleanup(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), `ck-${label}-`))
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) }
}

/** esbuild's `build`, given by the package that runs the fixture (the root does not install it). */
export type EsbuildBuild = (options: {
  entryPoints: string[]
  outfile: string
  bundle: true
  platform: 'node'
  format: 'esm'
  target: string
  logLevel: 'silent'
  external?: string[]
  banner?: { js: string }
}) => Promise<unknown>

/**
 * Bundle a fixture (`new URL('./x.fixture.ts', import.meta.url)`) and what it imports into one
 * plain `.mjs` file in `outDir` that `node` runs without a loader; returns its path. With
 * `commonJs` (a fixture that imports `pg`, which is CommonJS), the bundle gets a `require` and pg's
 * optional native binding stays out (it is never loaded).
 */
export async function bundleFixture(
  fixture: URL,
  outDir: string,
  build: EsbuildBuild,
  options: { commonJs?: boolean } = {},
): Promise<string> {
  const outfile = join(outDir, `fixture-${randomUUID()}.mjs`)
  await build({
    entryPoints: [fileURLToPath(fixture)],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'silent',
    ...(options.commonJs
      ? {
          external: ['pg-native'],
          banner: {
            js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
          },
        }
      : {}),
  })
  return outfile
}
