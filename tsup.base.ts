import type { Options } from 'tsup'

/** The build every published package uses: ESM for Node 20, with .d.ts and source maps. */
export const packageBuild: Options = {
  entry: ['src/index.ts'],
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  dts: true,
  sourcemap: true,
  clean: true,
  treeshake: true,
}
