import type { Options } from 'tsup'

/**
 * The build every published package uses (see "Package shape" in the root README): one ESM file
 * per source file (`bundle: false`), so a bundler drops whole modules a consumer does not import
 * (`"sideEffects": false`). Declarations come from `tsc -p tsconfig.build.json`, run after tsup
 * by each package's `build` script. `node:` specifiers are kept as written, so a Node-only module
 * is easy to spot and edge runtimes that require the prefix can load it.
 */
export const packageBuild: Options = {
  entry: [
    'src/**/*.ts',
    '!src/**/*.test.ts',
    '!src/**/*.test-d.ts',
    '!src/**/test-support.ts',
    '!src/fixtures/**',
  ],
  bundle: false,
  format: ['esm'],
  target: 'es2022',
  platform: 'neutral',
  removeNodeProtocol: false,
  dts: false,
  sourcemap: true,
  clean: true,
}
