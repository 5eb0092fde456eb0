/**
 * Recognizes known tags at a `<` in streamed text, deciding only when enough characters have
 * arrived. Shared by the XML and ChatML stream parsers.
 */

/** Longest tag (with attributes) considered; a longer `<…` run is plain text. */
export const MAX_TAG_LENGTH = 1024

/** A tag a parser mode listens for. */
export interface TagCandidate {
  /** Local tag name, e.g. `invoke`. */
  local: string
  closing: boolean
  /**
   * The attribute an opening tag must carry (`name` for `<invoke name="x">`), or `undefined`
   * for a bare tag (`<thinking>`). Only tags with an attribute may be self-closing (`/>`).
   */
  attribute: string | undefined
  /** `[/][ns:]local` as written after `<`. */
  spelled: string
}

/** One tag of a mode, before namespace variants are added. */
export interface TagSpec {
  local: string
  closing: boolean
  attribute?: string
}

/** Build the candidates of one mode, with each namespace variant (`''` = no prefix). */
export function candidates(
  tags: readonly TagSpec[],
  namespaces: readonly string[],
): TagCandidate[] {
  const out: TagCandidate[] = []
  for (const tag of tags) {
    for (const ns of ['', ...namespaces]) {
      out.push({
        local: tag.local,
        closing: tag.closing,
        attribute: tag.attribute,
        spelled: (tag.closing ? '/' : '') + (ns ? `${ns}:` : '') + tag.local,
      })
    }
  }
  return out
}

/** Result of {@link matchTagAt}. `value` is the required attribute's raw (still escaped) value. */
export type TagMatch =
  | { kind: 'match'; tag: TagCandidate; end: number; value?: string; selfClosing: boolean }
  | { kind: 'partial' }
  | { kind: 'none' }

function isNameChar(c: number): boolean {
  return (
    (c >= 97 && c <= 122) ||
    (c >= 65 && c <= 90) ||
    (c >= 48 && c <= 57) ||
    c === 95 ||
    c === 45 ||
    c === 58 ||
    c === 46
  )
}

/**
 * XML white space (the spec's `S`: space, tab, CR, LF) — narrower than core's `isSpace` on
 * purpose: a tag like `<tool_call\u00a0>` is text, as an XML parser would read it.
 */
function isXmlSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 9 || c === 13
}

/**
 * Try to read one of `cands` at `data[at] === '<'`.
 *
 * `partial` means the text so far could still become a candidate (hold it back); the decision
 * depends only on the characters `data[at .. at + MAX_TAG_LENGTH)`, so any chunking of the same
 * text yields the same answers.
 */
export function matchTagAt(data: string, at: number, cands: readonly TagCandidate[]): TagMatch {
  const len = data.length
  const limit = Math.min(len, at + MAX_TAG_LENGTH)
  const ranOut: TagMatch = limit === len && len - at < MAX_TAG_LENGTH ? PARTIAL : NONE
  let k = at + 1
  if (k < limit && data.charCodeAt(k) === 47) k++
  while (k < limit && isNameChar(data.charCodeAt(k))) k++
  const nameLength = k - at - 1
  if (k >= limit) {
    if (ranOut === NONE) return NONE
    const spelled = data.slice(at + 1, k)
    for (const c of cands) if (c.spelled.startsWith(spelled)) return PARTIAL
    return NONE
  }
  let tag: TagCandidate | undefined
  for (const c of cands) {
    if (c.spelled.length === nameLength && data.startsWith(c.spelled, at + 1)) {
      tag = c
      break
    }
  }
  if (!tag) return NONE
  if (tag.attribute === undefined) {
    while (k < limit && isXmlSpace(data.charCodeAt(k))) k++
    if (k >= limit) return ranOut
    return data.charCodeAt(k) === 62 ? { kind: 'match', tag, end: k + 1, selfClosing: false } : NONE
  }
  // attributes: key="…" or key='…'; the tag's own attribute is required and non-empty
  let value: string | undefined
  for (;;) {
    const before = k
    while (k < limit && isXmlSpace(data.charCodeAt(k))) k++
    if (k >= limit) return ranOut
    const c = data.charCodeAt(k)
    if (c === 62 || c === 47) {
      if (value === undefined || value === '') return NONE
      if (c === 62) return { kind: 'match', tag, end: k + 1, value, selfClosing: false }
      // `/>`: a self-closing opening tag (never on a closing tag)
      if (k + 1 >= limit) return ranOut
      if (tag.closing || data.charCodeAt(k + 1) !== 62) return NONE
      return { kind: 'match', tag, end: k + 2, value, selfClosing: true }
    }
    if (k === before) return NONE // attributes must be separated by whitespace
    const attrStart = k
    while (k < limit && isNameChar(data.charCodeAt(k))) k++
    if (k >= limit) return ranOut
    if (k === attrStart) return NONE
    const attr = data.slice(attrStart, k)
    while (k < limit && isXmlSpace(data.charCodeAt(k))) k++
    if (k >= limit) return ranOut
    if (data.charCodeAt(k) !== 61) return NONE
    k++
    while (k < limit && isXmlSpace(data.charCodeAt(k))) k++
    if (k >= limit) return ranOut
    const quote = data.charCodeAt(k)
    if (quote !== 34 && quote !== 39) return NONE
    const close = data.indexOf(quote === 34 ? '"' : "'", k + 1)
    if (close < 0 || close >= limit) return ranOut
    if (attr === tag.attribute) value = data.slice(k + 1, close)
    k = close + 1
  }
}

/** A complete tag found by {@link matchTagAt}. */
export type TagFound = Extract<TagMatch, { kind: 'match' }>

const PARTIAL: TagMatch = { kind: 'partial' }
const NONE: TagMatch = { kind: 'none' }

/** What {@link scanTags} reports to: the current mode's tags, text, and complete tags. */
export interface TagScanTarget {
  /** Candidates of the current mode; asked again after every tag, since tags switch modes. */
  candidates(): readonly TagCandidate[]
  /** Plain text between tags (may be called with `''`). */
  content(text: string): void
  /** A complete tag, written as `data.slice(start, end)`. */
  tag(match: TagFound, data: string, start: number): void
}

/**
 * Scan `data` for the target's tags, reporting text and tags in order, and return what must be
 * carried into the next chunk: a `<…` that could still become a tag (at most
 * {@link MAX_TAG_LENGTH} characters), or `''`. Each character is looked at a bounded number of
 * times, so streaming stays linear whatever the chunk sizes.
 */
export function scanTags(data: string, target: TagScanTarget): string {
  let i = 0
  for (;;) {
    const lt = data.indexOf('<', i)
    if (lt < 0) {
      target.content(data.slice(i))
      return ''
    }
    if (lt > i) target.content(data.slice(i, lt))
    const m = matchTagAt(data, lt, target.candidates())
    if (m.kind === 'partial') return data.slice(lt)
    if (m.kind === 'none') {
      target.content('<')
      i = lt + 1
      continue
    }
    target.tag(m, data, lt)
    i = m.end
  }
}
