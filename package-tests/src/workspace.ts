/**
 * The publishable packages of the workspace, discovered from `packages/*` (every folder with a
 * `package.json` that is not `private`), so a package added later is checked without any list
 * to update.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { packFileName } from '../../scripts/pack-all.mjs'

export const ROOT = fileURLToPath(new URL('../..', import.meta.url))

/** The fields of a package.json these checks read. */
export interface PackageJson {
  name: string
  version: string
  private?: boolean
  type?: string
  sideEffects?: boolean
  main?: string
  types?: string
  files?: string[]
  homepage?: string
  bugs?: { url?: string }
  repository?: { type?: string; url?: string; directory?: string }
  publishConfig?: Record<string, unknown>
  engines?: Record<string, string>
  exports?: Record<string, unknown>
  dependencies?: Record<string, string>
  peerDependencies?: Record<string, string>
  devDependencies?: Record<string, string>
  scripts?: Record<string, string>
  contextkit?: { nodeOnly?: string[] }
}

/** One entry point of a package (an `exports` key other than `./package.json`). */
export interface Entry {
  /** `.` or `./node`, … */
  subpath: string
  /** What a user imports: `@contextkit/core`, `@contextkit/core/node`. */
  specifier: string
  /** Listed in `contextkit.nodeOnly`: may use Node built-ins. */
  nodeOnly: boolean
}

export interface WorkspacePackage {
  /** Folder name under packages/. */
  folder: string
  dir: string
  json: PackageJson
  entries: Entry[]
}

/** Every publishable package under packages/, sorted by folder name. */
export function publishablePackages(): WorkspacePackage[] {
  const out: WorkspacePackage[] = []
  const packagesDir = join(ROOT, 'packages')
  for (const folder of readdirSync(packagesDir).sort()) {
    const dir = join(packagesDir, folder)
    let json: PackageJson
    try {
      json = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as PackageJson
    } catch {
      continue // not a package folder
    }
    if (json.private) continue
    const nodeOnly = new Set(json.contextkit?.nodeOnly ?? [])
    const entries = Object.keys(json.exports ?? {})
      .filter((subpath) => subpath !== './package.json')
      .map((subpath) => ({
        subpath,
        specifier: subpath === '.' ? json.name : `${json.name}/${subpath.slice(2)}`,
        nodeOnly: nodeOnly.has(subpath),
      }))
    out.push({ folder, dir, json, entries })
  }
  return out
}

/**
 * Whether Node's root of `pkg` is its pure root plus `./node` (`src/index.node.ts`, served by the
 * root's `node` branch; see "Package shape" in the root README). The middleware packages have
 * one; core does not: its root is the same in every runtime.
 */
export function hasNodeRoot(pkg: WorkspacePackage): boolean {
  return existsSync(join(pkg.dir, 'src', 'index.node.ts'))
}

/** The names of the `@contextkit` packages `name` needs at run time, itself included. */
export function workspaceClosure(name: string, all: readonly WorkspacePackage[]): string[] {
  const byName = new Map(all.map((p) => [p.json.name, p]))
  const seen = new Set<string>()
  const visit = (n: string) => {
    if (seen.has(n)) return
    seen.add(n)
    const pkg = byName.get(n)
    if (!pkg) throw new Error(`${name} depends on ${n}, which is not a publishable package`)
    const deps = { ...pkg.json.dependencies, ...pkg.json.peerDependencies }
    for (const dep of Object.keys(deps)) if (dep.startsWith('@contextkit/')) visit(dep)
  }
  visit(name)
  return [...seen]
}

/** `@contextkit/context-metadata` → `contextkit-context-metadata.tgz` (the name `pack:all` writes). */
export function tarballName(json: PackageJson): string {
  return packFileName(json.name)
}
