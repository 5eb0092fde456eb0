// Which packages `pnpm demo` builds, and whether they are built: read by scripts/demo.mjs to say
// "first run" only when the build it starts has something to build the first time.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

/** The `@contextkit` package a folder under packages/ holds, by name → folder. */
function workspacePackages(root) {
  const byName = new Map()
  const packages = join(root, 'packages')
  for (const folder of readdirSafe(packages)) {
    const file = join(packages, folder, 'package.json')
    if (!existsSync(file)) continue
    const json = JSON.parse(readFileSync(file, 'utf8'))
    byName.set(json.name, { folder: join(packages, folder), json })
  }
  return byName
}

function readdirSafe(dir) {
  try {
    return readdirSync(dir)
  } catch {
    return []
  }
}

/**
 * The package folders the demo's build makes (turbo's `--filter=@contextkit/examples^...`): the
 * workspace packages examples/ depends on, and theirs, transitively. Sorted.
 */
export function demoBuildFolders(root) {
  const byName = workspacePackages(root)
  const examples = JSON.parse(readFileSync(join(root, 'examples', 'package.json'), 'utf8'))
  const seen = new Set()
  const visit = (json) => {
    const deps = { ...json.dependencies, ...json.devDependencies }
    for (const name of Object.keys(deps)) {
      const pkg = byName.get(name)
      if (!pkg || seen.has(pkg.folder)) continue
      seen.add(pkg.folder)
      visit(pkg.json)
    }
  }
  visit(examples)
  return [...seen].sort()
}

/** Whether every package the demo builds has been built once (a first run has no dist/ yet). */
export function demoBuilt(root) {
  return demoBuildFolders(root).every((folder) => existsSync(join(folder, 'dist', 'index.js')))
}
