import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import type { Options } from 'tsup'
import ts from 'typescript'

type EsbuildPlugin = NonNullable<Options['esbuildPlugins']>[number]

/**
 * The folder under `dist/` that holds the Node build: every entry bundled, the modules shared by
 * several entries split into chunks (see {@link packageBuild}).
 */
export const NODE_BUILD_DIR = 'bundle'

/**
 * The source files behind the `exports` map of the package in `dir`, in the map's order without
 * repeats: every `.js` target, also inside nested conditions (an entry with a `node` and a
 * `default` branch names two files of one source), maps to its source: `./dist/index.js` and
 * `./dist/bundle/index.js` → `src/index.ts`, `./dist/index.node.js` → `src/index.node.ts`,
 * `./dist/anthropic/index.js` → `src/anthropic/index.ts`. `types` targets (`.d.ts`, written by
 * tsc beside the per-module files) are skipped.
 */
export function entrySources(dir: string): string[] {
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
    exports?: Record<string, unknown>
  }
  const sources: string[] = []
  const collect = (subpath: string, target: unknown): void => {
    if (typeof target === 'string') {
      if (target.endsWith('.d.ts')) return
      const stem = /^\.\/dist\/(?:bundle\/)?(.+)\.js$/.exec(target)?.[1]
      if (!stem) throw new Error(`${dir}: exports["${subpath}"] must point at ./dist/<name>.js`)
      const source = `src/${stem}.ts`
      if (!sources.includes(source)) sources.push(source)
      return
    }
    if (target === null || typeof target !== 'object' || Object.keys(target).length === 0) {
      throw new Error(`${dir}: exports["${subpath}"] must point at ./dist/<name>.js`)
    }
    for (const [condition, nested] of Object.entries(target)) {
      if (condition !== 'types') collect(subpath, nested)
    }
  }
  for (const [subpath, target] of Object.entries(pkg.exports ?? {})) {
    if (subpath !== './package.json') collect(subpath, target)
  }
  return sources
}

/**
 * Every source file reachable from `entries` through relative imports (`./x.js` → `./x.ts`),
 * so test helpers and fixtures that sit in `src/` never end up in `dist/`.
 */
export function reachableSources(dir: string, entries: readonly string[]): string[] {
  const seen = new Set<string>()
  const stack = entries.map((e) => resolve(dir, e))
  while (stack.length > 0) {
    const file = stack.pop()!
    if (seen.has(file)) continue
    if (!existsSync(file)) throw new Error(`${relative(dir, file)} is imported but does not exist`)
    seen.add(file)
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true)
    for (const { fileName } of importedFiles) {
      if (!fileName.startsWith('.')) continue
      const target = resolve(dirname(file), fileName)
      const candidates = [target.replace(/\.js$/, '.ts'), join(target, 'index.ts')]
      const found = candidates.find((c) => existsSync(c))
      if (found) stack.push(found)
      else stack.push(candidates[0]!) // reported as missing above
    }
  }
  return [...seen].map((f) => relative(dir, f)).sort()
}

/**
 * The esbuild plugin of the Node build that serves a module's Node build in its place: a relative
 * import of `./x.js` whose `./x.node-build.ts` exists beside `./x.ts` gets `./x.node-build.ts`.
 * Such a twin does in Node what its module cannot do in every runtime (agent-loop's
 * `lazy-zod.node-build.ts` loads zod synchronously on first use, where `lazy-zod.ts`, for
 * bundlers, imports it), with the same exports and types. The build for bundlers never sees a
 * twin: nothing imports one. (Not `x.node.ts`: `index.node.ts` is a package's Node root, which
 * imports `./index.js` itself.)
 */
export function nodeBuildTwins(): EsbuildPlugin {
  return {
    name: 'node-build-twins',
    setup(build) {
      build.onResolve({ filter: /^\.\.?\/.*\.js$/ }, (args) => {
        const twin = resolve(args.resolveDir, args.path.replace(/\.js$/, '.node-build.ts'))
        return existsSync(twin) ? { path: twin } : undefined
      })
    },
  }
}

/** `src/anthropic/index.ts` → `anthropic/index`: where the entry lands under the output folder. */
function entryName(source: string): string {
  return source.replace(/^src\//, '').replace(/\.ts$/, '')
}

/**
 * The two builds every published package ships (see "Package shape" in the root README), both
 * ESM for `es2022` with source maps, only from the modules reachable from the `exports` map:
 *
 * - `dist/`: one file per source module (`bundle: false`), the `default` condition of every
 *   entry. With `"sideEffects": false` a bundler drops whole modules a consumer does not import,
 *   which it could not do inside a chunk (a chunk's top-level `z.object(...)` calls stay).
 * - `dist/bundle/`: each entry bundled, the modules several entries share split into chunks
 *   (`splitting: true`), every package import (`@contextkit/*`, zod, …) left external; the `node`
 *   condition of every entry. Node loads a handful of files instead of one per module, which is
 *   most of a cold `import()`, and since every entry of the package resolves into this one set
 *   under Node, a class (an error, the model registry) is one class across its subpaths. A
 *   module with a Node twin (`x.node-build.ts` beside `x.ts`) is replaced by it here
 *   ({@link nodeBuildTwins}).
 *
 * Declarations come from `tsc -p tsconfig.build.json`, run after tsup by each package's `build`
 * script, beside the per-module files; both conditions name them. `node:` specifiers are kept as
 * written, so a Node-only module is easy to spot and edge runtimes that require the prefix can
 * load it.
 *
 * tsup loads a package's `tsup.config.ts` with the package folder as the working directory.
 */
export function packageBuild(dir: string = process.cwd()): Options[] {
  const entries = entrySources(dir)
  const shared: Options = {
    format: ['esm'],
    target: 'es2022',
    platform: 'neutral',
    removeNodeProtocol: false,
    dts: false,
    sourcemap: true,
  }
  return [
    {
      ...shared,
      entry: reachableSources(dir, entries),
      bundle: false,
      // both builds run at once: this one leaves the other's folder alone
      clean: [`!${NODE_BUILD_DIR}/**`],
    },
    {
      ...shared,
      entry: Object.fromEntries(entries.map((source) => [entryName(source), source])),
      outDir: `dist/${NODE_BUILD_DIR}`,
      bundle: true,
      splitting: true,
      esbuildPlugins: [nodeBuildTwins()],
      esbuildOptions(options) {
        options.packages = 'external'
      },
      clean: true,
    },
  ]
}
