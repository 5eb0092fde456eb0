#!/usr/bin/env node
// The contents line of every README (the root's and each package's): one line of links to the
// README's `##` sections, written just before its first `##` heading between two markers, with
// the anchors GitHub makes (github-slugger, the slugger GitHub's own renderer follows).
// Usage: node scripts/readme-contents.mjs           check: exit 1 and name every README whose
//                                                   line is missing or stale
//        node scripts/readme-contents.mjs --write   rewrite the lines
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import GithubSlugger from 'github-slugger'

export const OPEN = '<!-- contents: written by scripts/readme-contents.mjs -->'
export const CLOSE = '<!-- /contents -->'

const ROOT = fileURLToPath(new URL('..', import.meta.url))

/** The READMEs that carry a contents line: the root's, each package's and examples'. */
export function readmePaths(root = ROOT) {
  const packages = readdirSync(join(root, 'packages')).map((p) => join(root, 'packages', p))
  return [root, join(root, 'examples'), ...packages].map((dir) => join(dir, 'README.md'))
}

/** Headings of a Markdown text outside code fences: `{ depth, text }`, in order. */
export function headings(markdown) {
  const out = []
  let fence = null
  for (const line of markdown.split('\n')) {
    const open = /^\s*(`{3,}|~{3,})/.exec(line)
    if (open) {
      if (fence === null) fence = open[1][0]
      else if (open[1][0] === fence) fence = null
      continue
    }
    if (fence !== null) continue
    const h = /^(#{1,6})\s+(.+?)\s*#*\s*$/.exec(line)
    if (h) out.push({ depth: h[1].length, text: h[2] })
  }
  return out
}

/** The text of a heading as GitHub shows it (code spans and links reduced to their text). */
function plain(text) {
  return text
    .replace(/`([^`]*)`/g, '$1')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[*_]/g, '')
}

/**
 * Every anchor GitHub makes for the headings of `markdown` (any depth, duplicates numbered as
 * GitHub numbers them), for checking `#anchor` links.
 */
export function headingAnchors(markdown) {
  const slugger = new GithubSlugger()
  return new Set(headings(withoutContents(markdown)).map((h) => slugger.slug(plain(h.text))))
}

/** The contents line of `markdown`: its `##` sections as links, or `null` with fewer than 3. */
export function contentsLine(markdown) {
  const slugger = new GithubSlugger()
  const links = []
  for (const h of headings(withoutContents(markdown))) {
    const slug = slugger.slug(plain(h.text))
    if (h.depth === 2) links.push(`[${plain(h.text)}](#${slug})`)
  }
  return links.length < 3 ? null : `**Contents:** ${links.join(' · ')}`
}

/** `markdown` with its contents block (markers included) taken out. */
function withoutContents(markdown) {
  const at = markdown.indexOf(OPEN)
  if (at < 0) return markdown
  const end = markdown.indexOf(CLOSE, at)
  return end < 0 ? markdown : markdown.slice(0, at) + markdown.slice(end + CLOSE.length + 2)
}

/** `markdown` with a current contents block before its first `##` heading. */
export function withContents(markdown) {
  const bare = withoutContents(markdown)
  const line = contentsLine(bare)
  if (line === null) return bare
  const first = bare.search(/^## /m)
  return `${bare.slice(0, first)}${OPEN}\n${line}\n${CLOSE}\n\n${bare.slice(first)}`
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const write = process.argv.includes('--write')
  const stale = []
  for (const path of readmePaths()) {
    const text = readFileSync(path, 'utf8')
    const next = withContents(text)
    if (next === text) continue
    if (write) writeFileSync(path, next)
    else stale.push(path)
  }
  if (stale.length > 0) {
    console.error(`contents line missing or stale (run node scripts/readme-contents.mjs --write):`)
    for (const p of stale) console.error(`  ${p}`)
    process.exit(1)
  }
}
