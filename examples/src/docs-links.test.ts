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

/** Relative link targets of a Markdown text: `[text](target)` outside code fences. */
function relativeLinks(markdown: string): string[] {
  const prose = markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '')
  const links: string[] = []
  for (const match of prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    const target = match[1] ?? ''
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#')) continue
    links.push(target)
  }
  return links
}

describe('documentation links', () => {
  const files = markdownFiles(repo)

  it('finds the root README, the architecture document and every package README', () => {
    const names = files.map((f) => relative(repo, f))
    expect(names).toContain('README.md')
    expect(names).toContain(join('docs', 'architecture.md'))
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

  it('the link finder sees links and skips code and absolute URLs', () => {
    const text = 'See [a](docs/a.md#x) and [b](https://x.y) `[c](no.md)`\n```\n[d](no2.md)\n```'
    expect(relativeLinks(text)).toEqual(['docs/a.md#x'])
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
