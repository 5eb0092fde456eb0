import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
const SKIP = new Set(['node_modules', 'dist', '.git', '.turbo', '.vitest', 'CHANGELOG.md'])

/** Every Markdown file of the repository (changesets and build output excluded). */
function markdownFiles(dir: string): string[] {
  const out: string[] = []
  for (const name of readdirSync(dir)) {
    if (SKIP.has(name) || name === '.changeset') continue
    const path = join(dir, name)
    if (statSync(path).isDirectory()) out.push(...markdownFiles(path))
    else if (name.endsWith('.md')) out.push(path)
  }
  return out
}

/**
 * Link targets of a Markdown text that stay in the repository: `[text](target)` outside code
 * fences, absolute URLs left out; with `anchors`, same-file `#anchor` links too.
 */
function relativeLinks(markdown: string, { anchors = false } = {}): string[] {
  const prose = markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '')
  const links: string[] = []
  for (const match of prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    const target = match[1] ?? ''
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) || (target.startsWith('#') && !anchors)) continue
    links.push(target)
  }
  return links
}

describe('documentation links', () => {
  const files = markdownFiles(repo)

  it('finds the root README, every page under docs/ and every package README', () => {
    const names = files.map((f) => relative(repo, f))
    expect(names).toContain('README.md')
    expect(names).toContain(join('docs', 'README.md'))
    expect(names).toContain(join('docs', 'architecture.md'))
    expect(names).toContain(join('docs', 'trace-schema.md'))
    const guides = readdirSync(join(repo, 'docs', 'guides')).filter((n) => n.endsWith('.md'))
    expect(guides.length).toBeGreaterThan(8)
    for (const guide of guides) expect(names).toContain(join('docs', 'guides', guide))
    for (const pkg of readdirSync(join(repo, 'packages'))) {
      expect(names).toContain(join('packages', pkg, 'README.md'))
    }
  })

  it('every relative link resolves to a file inside the repository', () => {
    const broken: string[] = []
    for (const file of files) {
      for (const link of relativeLinks(readFileSync(file, 'utf8'))) {
        const target = resolve(dirname(file), decodeURIComponent(link.split('#')[0] ?? ''))
        const inside = !relative(repo, target).startsWith('..')
        if (!inside || !existsSync(target)) broken.push(`${relative(repo, file)} → ${link}`)
      }
    }
    expect(broken).toEqual([])
  })

  it("every #anchor resolves to a heading of the Markdown file it names (GitHub's anchors)", async () => {
    const { headingAnchors } = await import('../../scripts/readme-contents.mjs')
    const anchorsOf = new Map<string, Set<string>>()
    const broken: string[] = []
    let checked = 0
    for (const file of files) {
      for (const link of relativeLinks(readFileSync(file, 'utf8'), { anchors: true })) {
        const at = link.indexOf('#')
        if (at < 0) continue
        const path = link.slice(0, at)
        const target = path === '' ? file : resolve(dirname(file), decodeURIComponent(path))
        if (!target.endsWith('.md') || !existsSync(target)) continue // a missing file fails above
        if (!anchorsOf.has(target))
          anchorsOf.set(target, headingAnchors(readFileSync(target, 'utf8')))
        checked++
        const anchor = decodeURIComponent(link.slice(at + 1))
        if (!anchorsOf.get(target)?.has(anchor)) broken.push(`${relative(repo, file)} → ${link}`)
      }
    }
    expect(checked).toBeGreaterThan(100)
    expect(broken).toEqual([])
  })

  it('the link finder sees links and skips code and absolute URLs', () => {
    const text = 'See [a](docs/a.md#x) and [b](https://x.y) `[c](no.md)`\n```\n[d](no2.md)\n```'
    expect(relativeLinks(text)).toEqual(['docs/a.md#x'])
    expect(relativeLinks(`${text} [e](#here)`, { anchors: true })).toEqual(['docs/a.md#x', '#here'])
  })

  it("the anchor finder makes GitHub's anchors for headings of every depth", async () => {
    const { headingAnchors } = await import('../../scripts/readme-contents.mjs')
    const md = '# T\n### `agent:run-start`\n```\n## not one\n```\n## Install\n## Install'
    expect([...headingAnchors(md)]).toEqual(['t', 'agentrun-start', 'install', 'install-1'])
  })
})

describe('contents lines', () => {
  it('every README opens its sections with a current contents line (scripts/readme-contents.mjs)', async () => {
    const { readmePaths, withContents, OPEN } = await import('../../scripts/readme-contents.mjs')
    const paths: string[] = readmePaths()
    expect(paths.length).toBeGreaterThan(14)
    for (const path of paths) {
      const text = readFileSync(path, 'utf8')
      expect(text, `${relative(repo, path)}: run node scripts/readme-contents.mjs --write`).toBe(
        withContents(text),
      )
      expect(text).toContain(OPEN)
    }
  })

  it("its anchors are GitHub's: duplicates numbered, code and links reduced to text", async () => {
    const { contentsLine } = await import('../../scripts/readme-contents.mjs')
    const md = [
      '# T',
      '## Install',
      '```',
      '## not a heading',
      '```',
      '## `runAgent` and [tools](x.md)',
      '## Install',
    ].join('\n')
    expect(contentsLine(md)).toBe(
      '**Contents:** [Install](#install) · [runAgent and tools](#runagent-and-tools) · [Install](#install-1)',
    )
  })
})
