import { defineConfig, type Options } from 'tsup'
import { packageBuild } from '../../tsup.base.js'

/**
 * The page, built with the package and shipped in the tarball (nothing is fetched at run time):
 * `ui/main.tsx` and its CSS bundled with Preact into `dist/ui/app.js` and `dist/ui/app.css`.
 */
const page: Options = {
  entry: { app: 'ui/main.tsx' },
  outDir: 'dist/ui',
  format: ['esm'],
  platform: 'browser',
  target: 'es2022',
  bundle: true,
  noExternal: [/.*/],
  minify: true,
  sourcemap: false,
  dts: false,
  clean: true,
  tsconfig: 'ui/tsconfig.json',
  outExtension: () => ({ js: '.js' }),
  esbuildOptions(options) {
    options.jsx = 'automatic'
    options.jsxImportSource = 'preact'
  },
}

// the two library builds every package ships (the per-module one leaves the page's folder
// alone: the builds run at once), then the page
const [modules, bundle] = defineConfig(packageBuild()) as Options[]
export default [{ ...modules, clean: ['!bundle/**', '!ui/**'] }, bundle as Options, page]
