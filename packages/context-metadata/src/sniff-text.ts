/** Detection of encoding trouble, markup (XML/HTML) and markdown on a bounded prefix. */
import type { ContextWarning } from './types.js'

/**
 * Report text that was decoded with the wrong encoding: UTF-16 read as UTF-8 (NULs between
 * letters), or binary / mis-decoded bytes (many U+FFFD or control characters).
 */
export function encodingTrouble(text: string): ContextWarning | undefined {
  const len = Math.min(text.length, 8192)
  if (len === 0) return undefined
  let nul = 0
  let nulOdd = 0
  let control = 0
  let replacement = 0
  for (let i = 0; i < len; i++) {
    const c = text.charCodeAt(i)
    if (c === 0) {
      nul++
      if (i & 1) nulOdd++
    } else if (c < 32 && c !== 9 && c !== 10 && c !== 13 && c !== 12 && c !== 11 && c !== 27) {
      control++
    } else if (c === 0xfffd) replacement++
  }
  const startsUtf16Bom = text.startsWith('\uFFFD\uFFFD') && text.charCodeAt(3) === 0
  if (nul >= 4 && nul / len > 0.2) {
    const alternating = nulOdd / nul > 0.9 || nulOdd / nul < 0.1
    if (alternating || startsUtf16Bom) {
      return {
        code: 'utf16',
        message: 'Looks like UTF-16 text decoded as UTF-8; re-read it as UTF-16.',
      }
    }
  }
  // Real UTF-8 text almost never holds U+FFFD; Latin-1 or Windows-1252 read as UTF-8 turns every
  // accented letter into one, so 0.5% of them is enough. Controls need 5% (binary).
  const bad = nul + control + replacement
  if ((replacement >= 3 && replacement / len > 0.005) || (bad >= 3 && bad / len > 0.05)) {
    return {
      code: 'misdecoded',
      message:
        'Looks like binary data or text in another encoding (invalid or control characters).',
    }
  }
  return undefined
}

const HTML_TAGS = new Set([
  'html',
  'head',
  'body',
  'div',
  'p',
  'span',
  'table',
  'ul',
  'ol',
  'li',
  'script',
  'style',
  'meta',
  'link',
  'a',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'section',
  'article',
  'nav',
  'header',
  'footer',
  'main',
  'form',
  'img',
  'br',
  'title',
  'button',
  'input',
  'label',
  'select',
  'option',
  'textarea',
  'fieldset',
  'legend',
  'em',
  'strong',
  'b',
  'i',
  'u',
  'small',
  'code',
  'pre',
  'blockquote',
  'hr',
  'tr',
  'td',
  'th',
  'thead',
  'tbody',
  'tfoot',
  'caption',
  'dl',
  'dt',
  'dd',
  'figure',
  'figcaption',
  'iframe',
  'canvas',
  'video',
  'audio',
  'source',
  'picture',
  'template',
  'slot',
  'aside',
  'details',
  'summary',
  'dialog',
  'noscript',
  'svg',
  'base',
  'abbr',
  'cite',
  'mark',
  'time',
  'sup',
  'sub',
  'kbd',
])

/** Share of HTML element names among the first tags of `text` (up to 64 tags). */
function htmlTagShare(text: string): { tags: number; html: number } {
  const re = /<([A-Za-z][\w-]*)[\s/>]/g
  const head = text.slice(0, 16384)
  let tags = 0
  let html = 0
  for (let m = re.exec(head); m && tags < 64; m = re.exec(head)) {
    tags++
    if (HTML_TAGS.has(m[1]!.toLowerCase())) html++
  }
  return { tags, html }
}

/** What markup sniffing found. */
export interface MarkupSniff {
  format: 'xml' | 'html'
  rootElement?: string
}

/**
 * Sniff XML or HTML: skips a BOM-less prefix's prolog (`<?xml …?>`), comments and a doctype,
 * then reads the first element name. `<!DOCTYPE html>` or an HTML root/element name means html.
 */
export function sniffMarkup(text: string): MarkupSniff | undefined {
  let p = 0
  let sawProlog = false
  let doctype: string | undefined
  for (let guard = 0; guard < 1000; guard++) {
    while (p < text.length && text.charCodeAt(p) <= 32) p++
    if (text.startsWith('<?', p)) {
      const e = text.indexOf('?>', p + 2)
      if (e < 0) return sawProlog ? { format: 'xml' } : undefined
      sawProlog = true
      p = e + 2
    } else if (text.startsWith('<!--', p)) {
      const e = text.indexOf('-->', p + 4)
      if (e < 0) return sawProlog ? { format: 'xml' } : undefined
      p = e + 3
    } else if (/^<!doctype\s/i.test(text.slice(p, p + 10))) {
      const e = text.indexOf('>', p)
      doctype = text.slice(p + 9, e < 0 ? p + 100 : e).trim()
      if (e < 0) break
      p = e + 1
    } else {
      break
    }
  }
  const m = /^<([A-Za-z_][\w.:-]*)[\s/>]/.exec(text.slice(p, p + 200))
  const root = m?.[1]
  if (doctype !== undefined && /^html\b/i.test(doctype)) {
    return root ? { format: 'html', rootElement: root } : { format: 'html' }
  }
  if (!root) return sawProlog || doctype !== undefined ? { format: 'xml' } : undefined
  const lower = root.toLowerCase()
  if (lower === 'html' || (!sawProlog && HTML_TAGS.has(lower))) {
    return { format: 'html', rootElement: root }
  }
  // A fragment under a custom element (`<my-app><form><button>…`) is still HTML.
  if (!sawProlog && !/\sxmlns(:\w+)?=/.test(text.slice(0, 4096))) {
    const share = htmlTagShare(text)
    if (share.html >= 2 && share.html * 2 >= share.tags)
      return { format: 'html', rootElement: root }
  }
  // An element must close somewhere (or self-close) to count as markup at all.
  if (!sawProlog && !text.includes('</') && !text.includes('/>')) return undefined
  return { format: 'xml', rootElement: root }
}

/** A table separator row, tested on the trimmed line (no ambiguous adjacent `\s*`). */
const TABLE_SEPARATOR = /^\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)+\|?$/

/** `true` when the lines hold a markdown table (a `|` row followed by a `|---|` row). */
export function hasMarkdownTable(lines: readonly string[]): boolean {
  for (let i = 1; i < lines.length; i++) {
    const row = lines[i - 1]!
    const sep = lines[i]!
    if (row.includes('|') && sep.length < 4096 && TABLE_SEPARATOR.test(sep.trim())) return true
  }
  return false
}

/**
 * A markdown score over the first lines: ATX headings (`# Title`, not `#hashtag`), fences,
 * tables, links, lists, quotes and emphasis. Shebang scripts score 0. `>= 3` means markdown.
 * One `#` line alone scores 1 (a comment in a script or a YAML file looks the same); two or
 * more headings score 3 and up.
 */
export function markdownScore(lines: readonly string[]): number {
  if (lines[0]?.startsWith('#!')) return 0
  let score = 0
  let headings = 0
  let fences = 0
  let links = 0
  let lists = 0
  let other = 0
  const n = Math.min(lines.length, 400)
  for (let i = 0; i < n; i++) {
    // Long lines are cut so no pattern below can cost more than linear time in the prefix.
    const line = lines[i]!.length > 2048 ? lines[i]!.slice(0, 2048) : lines[i]!
    if (/^#{1,6}(\s|$)/.test(line) && line.trim().length > 1) headings++
    else if (/^\s{0,3}(```|~~~)/.test(line)) fences++
    else if (/^\s*([-*+]|\d{1,3}[.)])\s+\S/.test(line)) lists++
    else if (/^>\s?\S/.test(line)) other++
    // `[text](url)`: anchored on `](` so a line full of `[` cannot make the search quadratic.
    const open = line.indexOf('[')
    if (open >= 0 && open < line.indexOf('](') && /\]\([^)\s]+\)/.test(line)) links++
    if (/(\*\*|__)\S[^*_]*\S\1/.test(line) || /`[^`\s][^`]*`/.test(line)) other++
    if (i > 0 && /^(=+|-+)\s*$/.test(line) && lines[i - 1]!.trim() !== '') score += 2
  }
  if (hasMarkdownTable(lines.slice(0, n))) score += 4
  score += headings >= 2 ? 3 + Math.min(headings - 2, 3) : headings
  score += Math.min(fences, 2) * 2 + Math.min(links, 3) + Math.min(lists, 3) + Math.min(other, 2)
  return score
}
