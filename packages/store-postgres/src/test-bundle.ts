// Test-only: a child-process fixture bundled once per test file, so that each of its processes
// starts as plain `node` (loading TypeScript through `--import tsx` module by module took about
// 3.5 s of CPU a process on a loaded 2-core machine; a bundle about 1 s).
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

/**
 * Bundle `fixture` (`new URL('./x.ts', import.meta.url)`) and what it imports into
 * `<dir>/<name>.mjs`; returns its path.
 */
export async function bundleProcessFixture(
  fixture: URL,
  dir: string,
  name: string,
): Promise<string> {
  const outfile = join(dir, `${name}.mjs`)
  await build({
    entryPoints: [fileURLToPath(fixture)],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'silent',
    // pg's optional native binding is never loaded; pg is CommonJS, so `require` is given
    external: ['pg-native'],
    banner: {
      js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
    },
  })
  return outfile
}
