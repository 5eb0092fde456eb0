import { assertString } from '@contextkit/core'
/**
 * Marking and removing text that resumption itself injected, so a reply that echoes the injected
 * block is never captured back into the next tail (no feedback loop).
 */

import { checkStrings, optionsOf } from './guards.js'

/** Invisible sequence (U+2063 U+2064 U+2063) opening a block resumption injected. */
export const INJECTED_START = '\u2063\u2064\u2063'
/** Invisible sequence (U+2064 U+2063 U+2064) closing a block resumption injected. */
export const INJECTED_END = '\u2064\u2063\u2064'

/**
 * Wrap `text` in the invisible injected-text markers. U+2063 and U+2064 are reserved for the
 * markers and removed from `text` first: a text holding a closing marker would otherwise end its
 * block early, and what follows would survive {@link stripInjected}.
 */
export function markInjected(text: string): string {
  assertString(text, 'markInjected', 'text')
  return `${INJECTED_START}${text.replace(MARKER_CHARS, '')}${INJECTED_END}`
}

const MARKER_CHARS = /[\u2063\u2064]/g

/** Options of {@link stripInjected}. */
export interface StripInjectedOptions {
  /**
   * A run of this many consecutive words (compared case-insensitively, ignoring surrounding
   * punctuation) shared with an injected text counts as an echo and is removed. Default `6`.
   */
  minWords?: number
}

interface Word {
  start: number
  end: number
  norm: string
}

function words(text: string): Word[] {
  const out: Word[] = []
  const re = /\S+/gu
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    const norm = m[0].toLowerCase().replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '')
    if (norm.length > 0) out.push({ start: m.index, end: m.index + m[0].length, norm })
  }
  return out
}

function removeMarkedBlocks(text: string): string {
  let out = ''
  let from = 0
  for (;;) {
    const open = text.indexOf(INJECTED_START, from)
    if (open < 0) break
    const close = text.indexOf(INJECTED_END, open + INJECTED_START.length)
    out += text.slice(from, open)
    if (close < 0) {
      // An unterminated block: drop only the marker, keep the text (never lose real content).
      from = open + INJECTED_START.length
      continue
    }
    from = close + INJECTED_END.length
  }
  out += text.slice(from)
  return out.replaceAll(INJECTED_END, '')
}

/**
 * Remove from `text` everything resumption injected: blocks between the invisible markers, and
 * echoes of the `injected` texts (exact copies, and any run of `minWords` or more consecutive
 * words shared with one of them). Text that was not injected is kept as it was.
 */
export function stripInjected(
  text: string,
  injected: readonly string[] = [],
  options: StripInjectedOptions = {},
): string {
  assertString(text, 'stripInjected', 'text')
  checkStrings(injected, 'stripInjected', 'injected')
  options = optionsOf(options, 'stripInjected')
  const minWords = Math.max(2, Math.floor(options.minWords ?? 6))
  let out = removeMarkedBlocks(text)
  // The injected texts themselves are unwrapped (not removed): their content is what to look for.
  const pieces = injected
    .map((p) => p.replaceAll(INJECTED_START, '').replaceAll(INJECTED_END, ''))
    .filter((p) => p.trim().length > 0)
  if (pieces.length === 0) return out
  for (const piece of pieces) {
    const exact = piece.trim()
    if (exact.length > 0) out = out.split(exact).join(' ')
  }
  const shingles = new Set<string>()
  const firstWords = new Set<string>()
  for (const piece of pieces) {
    const ws = words(piece).map((w) => w.norm)
    for (let i = 0; i + minWords <= ws.length; i++) {
      shingles.add(ws.slice(i, i + minWords).join(' '))
      firstWords.add(ws[i]!)
    }
  }
  if (shingles.size === 0) return out
  const ws = words(out)
  const norms = ws.map((w) => w.norm)
  const covered = new Array<boolean>(ws.length).fill(false)
  for (let i = 0; i + minWords <= ws.length; i++) {
    // Cheap pre-check: only build the key where an injected run could start.
    if (!firstWords.has(norms[i]!)) continue
    if (shingles.has(norms.slice(i, i + minWords).join(' '))) covered.fill(true, i, i + minWords)
  }
  let result = ''
  let from = 0
  for (let i = 0; i < ws.length; i++) {
    if (!covered[i]) continue
    let j = i
    while (j + 1 < ws.length && covered[j + 1]) j++
    result += `${out.slice(from, ws[i]!.start)} `
    from = ws[j]!.end
    i = j
  }
  result += out.slice(from)
  return result
}
