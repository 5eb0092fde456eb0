import { assertString } from './errors.js'
import { textMemo } from './text-memo.js'

/**
 * A single-pass token estimator: one `charCodeAt` walk, no regexes, no allocation.
 *
 * It prices runs of characters the way BPE tokenizers tend to split them: short words are one
 * token and long ones about four characters a token, digits group by three, punctuation costs
 * about one token per two characters, CJK one per character, astral symbols (emoji) two.
 * It leans toward over-counting on dense text (JSON, minified code, CJK) where `chars / 4`
 * under-counts badly. Tested against tokenx on prose, code, JSON and CJK samples.
 */

enum Run {
  None = 0,
  Word = 1,
  Digits = 2,
  Punct = 3,
  Space = 4,
}

function runCost(kind: Run, units: number): number {
  switch (kind) {
    case Run.Word:
      return units <= 6 ? 1 : Math.ceil(units / 5)
    case Run.Digits:
      return Math.ceil(units / 3)
    case Run.Punct:
      return Math.ceil(units * 0.4)
    case Run.Space:
      // one space is merged into the next word; longer runs (indentation) cost ~1 per 8
      return units > 1 ? Math.ceil((units - 1) / 8) : 0
    default:
      return 0
  }
}

function isCjk(c: number): boolean {
  return (
    (c >= 0x2e80 && c <= 0x9fff) || // radicals, kana, CJK unified ideographs
    (c >= 0xac00 && c <= 0xd7af) || // hangul syllables
    (c >= 0xf900 && c <= 0xfaff) || // compatibility ideographs
    (c >= 0xff00 && c <= 0xffef) // full-width forms
  )
}

/**
 * Estimates remembered by content: texts of 128 characters or more, at most 4,096 texts of 8 MiB
 * together, the oldest out first (shorter texts are walked every time: a lookup would cost about
 * as much).
 */
const remembered = textMemo(walk, {
  minChars: 128,
  maxEntries: 4096,
  maxChars: 8 * 1024 * 1024,
})

/**
 * Raw estimate of the number of tokens in `text` (no safety or model factor applied).
 *
 * Texts of 128 characters or more are remembered by content (a bounded map, oldest first out),
 * so the same section, file or message counted again on every model call and every run costs a
 * map lookup instead of a walk; the estimate is a function of the text alone, so a remembered
 * count is always the count of that exact text.
 */
export function estimateTokens(text: string): number {
  assertString(text, 'estimateTokens', 'text')
  return remembered(text)
}

/** {@link estimateTokens} without the memo (for tests). @internal */
export function estimateTokensUncached(text: string): number {
  assertString(text, 'estimateTokensUncached', 'text')
  return walk(text)
}

/** The number of texts the memo holds and their characters together (for tests). @internal */
export function estimateMemoSize(): { entries: number; chars: number } {
  return remembered.size()
}

function walk(text: string): number {
  let tokens = 0
  let kind: Run = Run.None
  let units = 0
  const n = text.length
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i)
    let next: Run
    let weight = 1
    if (c < 0x80) {
      if ((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95) next = Run.Word
      else if (c >= 48 && c <= 57) next = Run.Digits
      else if (c === 32) next = Run.Space
      else if (c === 10 || c === 13) {
        // a newline (or CRLF, or a blank-line run) ends the run and costs one token
        tokens += runCost(kind, units) + 1
        kind = Run.None
        units = 0
        while (i + 1 < n) {
          const d = text.charCodeAt(i + 1)
          if (d !== 10 && d !== 13) break
          i++
        }
        continue
      } else if (c === 9) {
        next = Run.Space
        weight = 4
      } else next = Run.Punct
    } else if (c >= 0xd800 && c <= 0xdfff) {
      tokens += runCost(kind, units)
      kind = Run.None
      units = 0
      const isHigh = c <= 0xdbff
      const low = isHigh && i + 1 < n ? text.charCodeAt(i + 1) : 0
      if (isHigh && low >= 0xdc00 && low <= 0xdfff) i++
      tokens += 2 // emoji and other astral symbols; a lone surrogate is priced the same
      continue
    } else if (isCjk(c)) {
      tokens += runCost(kind, units) + 1
      kind = Run.None
      units = 0
      continue
    } else if (c === 0xa0 || (c >= 0x2000 && c <= 0x200b) || c === 0x3000) {
      next = Run.Space
    } else if (c >= 0x2010 && c <= 0x2bff) {
      next = Run.Punct // general punctuation, arrows, math, box drawing
    } else {
      next = Run.Word // accented Latin, Greek, Cyrillic, Arabic, Indic…: denser than ASCII
      weight = 2
    }
    if (next !== kind) {
      tokens += runCost(kind, units)
      kind = next
      units = 0
    }
    units += weight
  }
  return tokens + runCost(kind, units)
}
