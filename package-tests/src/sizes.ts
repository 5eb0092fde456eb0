/**
 * The bundle size every package README states, under a `<!-- bundle-size -->` line:
 *
 *   Bundle size (esbuild, minified + gzip, `platform: 'browser'`): `fitSections` alone 25.9 kB,
 *   the whole `@contextkit/core` entry 31.2 kB.
 *
 * The function named is the one measured (imported alone from the package root, for platform
 * `browser`). A package whose root is Node-only (testkit) states no size: nothing bundles it for
 * a browser or an edge runtime, and a server loads it from `node_modules`, so its paragraph says
 * why instead, starting `No bundle size:`. `pnpm --filter @contextkit/package-tests sizes
 * --write` measures and rewrites these paragraphs.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { bundle } from './bundle.js'
import type { WorkspacePackage } from './workspace.js'

export const SIZE_MARKER = '<!-- bundle-size -->'

/** How the paragraph of a package with a Node-only root begins. */
export const NO_SIZE = 'No bundle size:'

/** Whether `pkg`'s root entry is Node-only (then its README states no bundle size). */
export function nodeOnlyRoot(pkg: WorkspacePackage): boolean {
  return pkg.entries.some((e) => e.subpath === '.' && e.nodeOnly)
}

export interface DocumentedSize {
  /** The function imported alone. */
  probe: string
  platform: 'browser' | 'node'
  /** kB, minified + gzip. */
  probeKB: number
  entryKB: number
}

export interface MeasuredSize {
  probe: string
  platform: 'browser' | 'node'
  probeBytes: number
  entryBytes: number
}

const PARAGRAPH =
  /Bundle size \(esbuild, minified \+ gzip, `platform: '(browser|node)'`\): `(\w+)` alone ([\d.]+) kB, the whole `[^`]+` entry ([\d.]+) kB\./

/** The paragraph after the marker in `readme`, whitespace collapsed; `null` when missing. */
export function sizeParagraph(readme: string): { text: string; start: number; end: number } | null {
  const at = readme.indexOf(SIZE_MARKER)
  if (at < 0) return null
  const start = at + SIZE_MARKER.length + 1
  const blank = readme.indexOf('\n\n', start)
  const end = blank < 0 ? readme.length : blank
  return { text: readme.slice(start, end).replace(/\s+/g, ' ').trim(), start, end }
}

export function readDocumentedSize(readme: string): DocumentedSize | null {
  const paragraph = sizeParagraph(readme)
  const m = paragraph && PARAGRAPH.exec(paragraph.text)
  if (!m) return null
  return {
    platform: m[1] as 'browser' | 'node',
    probe: m[2]!,
    probeKB: Number(m[3]),
    entryKB: Number(m[4]),
  }
}

/** The paragraph for `size`, wrapped at 100 columns like the rest of the READMEs. */
export function renderSizeParagraph(name: string, size: MeasuredSize): string {
  const text =
    `Bundle size (esbuild, minified + gzip, \`platform: '${size.platform}'\`): ` +
    `\`${size.probe}\` alone ${(size.probeBytes / 1000).toFixed(1)} kB, the whole \`${name}\` ` +
    `entry ${(size.entryBytes / 1000).toFixed(1)} kB.`
  const lines: string[] = []
  let line = ''
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > 100) {
      lines.push(line)
      line = word
    } else line = line ? `${line} ${word}` : word
  }
  lines.push(line)
  return lines.join('\n')
}

/** Measure what the README of `pkg` documents: its probe function alone, and the whole root. */
export async function measureSize(
  pkg: WorkspacePackage,
  nodeModules: string,
): Promise<MeasuredSize> {
  const readme = readFileSync(join(pkg.dir, 'README.md'), 'utf8')
  const documented = readDocumentedSize(readme)
  if (!documented) {
    throw new Error(
      `${pkg.json.name}: README.md needs a "${SIZE_MARKER}" line followed by the size paragraph (see package-tests/src/sizes.ts)`,
    )
  }
  const root = pkg.entries.find((e) => e.subpath === '.')
  if (!root) throw new Error(`${pkg.json.name} has no root entry`)
  if (root.nodeOnly) throw new Error(`${pkg.json.name}: a Node-only root states no bundle size`)
  const platform = 'browser'
  const probe = await bundle(`export { ${documented.probe} } from '${pkg.json.name}'`, {
    nodeModules,
    platform,
  })
  const entry = await bundle(`export * from '${pkg.json.name}'`, { nodeModules, platform })
  return {
    probe: documented.probe,
    platform,
    probeBytes: probe.gzipBytes,
    entryBytes: entry.gzipBytes,
  }
}
