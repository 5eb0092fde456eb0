/**
 * Measure the bundle size each package README states (see sizes.ts) and print a table; with
 * `--write`, rewrite the paragraph after each README's `<!-- bundle-size -->` line. Needs the
 * packages built (`pnpm build`).
 *
 *   pnpm --filter @contextkit/package-tests sizes [--write]
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { linkPackages } from './bundle.js'
import { measureSize, nodeOnlyRoot, renderSizeParagraph, sizeParagraph } from './sizes.js'
import { publishablePackages } from './workspace.js'

const write = process.argv.includes('--write')
const packages = publishablePackages().filter((p) => !nodeOnlyRoot(p))
const links = linkPackages(packages)
try {
  for (const pkg of packages) {
    const size = await measureSize(pkg, links.nodeModules)
    const probe = `${(size.probeBytes / 1000).toFixed(1)} kB`
    const entry = `${(size.entryBytes / 1000).toFixed(1)} kB`
    console.log(
      `${pkg.json.name.padEnd(30)} ${size.platform.padEnd(8)} ${size.probe.padEnd(24)} ${probe.padStart(9)}   entry ${entry.padStart(9)}`,
    )
    if (!write) continue
    const file = join(pkg.dir, 'README.md')
    const readme = readFileSync(file, 'utf8')
    const at = sizeParagraph(readme)
    if (!at) continue
    const next =
      readme.slice(0, at.start) + renderSizeParagraph(pkg.json.name, size) + readme.slice(at.end)
    if (next !== readme) writeFileSync(file, next)
  }
} finally {
  links.dispose()
}
