import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import type { Options } from 'tsup'
import ts from 'typescript'

/**
 * The source files behind the `exports` map of the package in `dir`, in the map's order without
 * repeats: every `.js` target, also inside nested conditions (a root entry with a `node` and a
 * `default` branch names two), maps to its source: `./dist/index.js` → `src/index.ts`,
 * `./dist/index.node.js` → `src/index.node.ts`, `./dist/anthropic/index.js` →
 * `src/anthropic/index.ts`. `types` targets (`.d.ts`, written by tsc beside them) are skipped.
 */
export function entrySources(dir: string): string[] {
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
    exports?: Record<string, unknown>
  }
  const sources: string[] = []
  const collect = (subpath: string, target: unknown): void => {
    if (typeof target === 'string') {
      if (target.endsWith('.d.ts')) return
      const stem = /^\.\/dist\/(.+)\.js$/.exec(target)?.[1]
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
 * The build every published package uses (see "Package shape" in the root README): one ESM file
 * per source module (`bundle: false`), only for the modules reachable from the `exports` map,
 * so a bundler drops whole modules a consumer does not import (`"sideEffects": false`).
 * Declarations come from `tsc -p tsconfig.build.json`, run after tsup by each package's `build`
 * script. `node:` specifiers are kept as written, so a Node-only module is easy to spot and edge
 * runtimes that require the prefix can load it.
 *
 * tsup loads a package's `tsup.config.ts` with the package folder as the working directory.
 */
export function packageBuild(dir: string = process.cwd()): Options {
  return {
    entry: reachableSources(dir, entrySources(dir)),
    bundle: false,
    format: ['esm'],
    target: 'es2022',
    platform: 'neutral',
    removeNodeProtocol: false,
    dts: false,
    sourcemap: true,
    clean: true,
  }
}
