/**
 * Bundle `@contextkit/*` imports with esbuild the way an application's bundler would: through
 * each package's `exports` map (from the built `dist/`), with the conditions of the target
 * platform (`browser` takes an export map's `default` branch, `node` its `node` branch, as an
 * application's bundler for that platform does). Node built-ins met on the way are recorded (with the module that imported them)
 * instead of failing the build, so a check can name every one.
 */

import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs'
import { builtinModules } from 'node:module'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { gzipSync } from 'node:zlib'
import * as esbuild from 'esbuild'
import { ROOT, type WorkspacePackage } from './workspace.js'

const BUILTINS = new Set(builtinModules)

/** A Node built-in a bundle would need, and the module (relative to the repo) that imports it. */
export interface NodeImport {
  path: string
  importer: string
}

export interface BundleResult {
  code: string
  /** Minified size in bytes. */
  minBytes: number
  /** Minified + gzip (level 9) size in bytes. */
  gzipBytes: number
  nodeImports: NodeImport[]
  /** The names the bundle exports (format `esm`; empty for `iife`). */
  exports: string[]
}

export function isNodeBuiltin(path: string): boolean {
  return path.startsWith('node:') || BUILTINS.has(path.split('/')[0] ?? path)
}

/**
 * A folder whose `node_modules/@contextkit/<name>` links point at the workspace packages, so a
 * bundle resolves them by name through their `exports` maps. Call `dispose` when done.
 */
export function linkPackages(packages: readonly WorkspacePackage[]): {
  nodeModules: string
  dispose: () => void
} {
  const base = mkdtempSync(join(tmpdir(), 'ck-bundle-'))
  const scope = join(base, 'node_modules', '@contextkit')
  mkdirSync(scope, { recursive: true })
  for (const pkg of packages) {
    symlinkSync(pkg.dir, join(scope, pkg.json.name.split('/')[1]!), 'dir')
  }
  return {
    nodeModules: join(base, 'node_modules'),
    dispose: () => rmSync(base, { recursive: true, force: true }),
  }
}

/** What {@link bundle} is given besides the source. */
export interface BundleOptions {
  nodeModules: string
  platform: 'browser' | 'node'
  format?: 'esm' | 'iife'
}

/**
 * The bundles made so far in this process, by source and options: the browser checks, the node
 * root's checks and the size check ask for the same bundle of an entry several times (17 of 79),
 * and the built packages do not change while the tests run.
 */
const made = new Map<string, Promise<BundleResult>>()

/**
 * Bundle `source` (an ES module importing `@contextkit/*`), minified. `platform: 'browser'`
 * records every Node built-in reached; `platform: 'node'` leaves built-ins external. A bundle
 * asked for again is the one made before (callers only read it).
 */
export function bundle(source: string, options: BundleOptions): Promise<BundleResult> {
  const key = JSON.stringify([source, options.nodeModules, options.platform, options.format])
  let result = made.get(key)
  if (!result) {
    result = build(source, options)
    made.set(key, result)
    result.catch(() => made.delete(key))
  }
  return result
}

async function build(source: string, options: BundleOptions): Promise<BundleResult> {
  const nodeImports: NodeImport[] = []
  const result = await esbuild.build({
    stdin: { contents: source, resolveDir: ROOT, loader: 'js' },
    bundle: true,
    write: false,
    minify: true,
    format: options.format ?? 'esm',
    platform: options.platform,
    target: 'es2022',
    nodePaths: [options.nodeModules],
    logLevel: 'silent',
    metafile: true,
    plugins: [
      {
        name: 'record-node-builtins',
        setup(build) {
          build.onResolve({ filter: /.*/ }, (args) => {
            if (!isNodeBuiltin(args.path)) return undefined
            if (options.platform === 'browser') {
              nodeImports.push({ path: args.path, importer: relative(ROOT, args.importer) })
            }
            return { path: args.path, external: true }
          })
        },
      },
    ],
  })
  const code = result.outputFiles[0]?.text ?? ''
  const outputs = Object.values(result.metafile?.outputs ?? {})
  return {
    code,
    minBytes: Buffer.byteLength(code),
    gzipBytes: gzipSync(code, { level: 9 }).length,
    nodeImports,
    exports: outputs.flatMap((o) => o.exports).sort(),
  }
}
