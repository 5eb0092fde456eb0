/**
 * Is a bounded prefix the start of a JSON document? A validating tokenizer that accepts running
 * out of input anywhere, so a JSON file whose first record is larger than the sniff window is
 * still recognized (and told apart from text that merely starts with `{`).
 */

/** The verdict on a prefix. */
export type JsonPrefixState =
  /** Not JSON: a token that cannot appear where it does. */
  | { kind: 'invalid' }
  /** Valid so far; the first value runs past the end of the prefix. */
  | { kind: 'open' }
  /** The first value ends at `end` (exclusive); `more` when another non-blank character follows. */
  | { kind: 'closed'; end: number; more: boolean }

const NUMBER = /-?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?/y
const LITERALS = ['true', 'false', 'null']

function ws(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13
}

/** End of the string whose content starts at `from`, or -1; `false` on a raw control char. */
function stringEnd(t: string, from: number): number | false {
  let p = from
  for (;;) {
    const j = t.indexOf('"', p)
    const stop = j === -1 ? t.length : j
    for (let k = p; k < stop; k++) if (t.charCodeAt(k) < 32) return false
    if (j === -1) return -1
    let k = j - 1
    while (k >= from && t.charCodeAt(k) === 92) k--
    if (((j - 1 - k) & 1) === 0) return j + 1
    p = j + 1
  }
}

/** A scalar token (number or literal) at `i`: its end, -1 if cut by the prefix end, or false. */
function scalarEnd(t: string, i: number): number | false {
  const c = t.charCodeAt(i)
  if (c === 116 || c === 102 || c === 110) {
    for (const lit of LITERALS) {
      const part = t.slice(i, i + lit.length)
      if (lit === part) return i + lit.length
      if (i + part.length === t.length && lit.startsWith(part)) return -1
    }
    return false
  }
  // A number cut by the end of the prefix (`-3.1e`) is still open: validate only complete ones.
  let j = i
  while (j < t.length && /[-+.eE0-9]/.test(t.charAt(j))) j++
  if (j === t.length) return -1
  NUMBER.lastIndex = i
  const m = NUMBER.exec(t)
  return m && m[0].length === j - i ? j : false
}

/** Expectations of the tokenizer. */
enum Expect {
  Value,
  ValueOrClose,
  Key,
  KeyOrClose,
  Colon,
  CommaOrClose,
}

/**
 * Classify `text` (no BOM) as a JSON prefix. Linear in the prefix length; the stack holds one
 * entry per open container.
 */
export function jsonPrefix(text: string): JsonPrefixState {
  const stack: number[] = []
  let expect: Expect = Expect.Value
  let i = 0
  const len = text.length
  /** After a complete value: the verdict when it was the root value, else undefined. */
  const afterValue = (at: number): JsonPrefixState | undefined => {
    if (stack.length > 0) return undefined
    let k = at
    while (k < len && ws(text.charCodeAt(k))) k++
    return { kind: 'closed', end: at, more: k < len }
  }
  while (i < len) {
    const c = text.charCodeAt(i)
    if (ws(c)) {
      i++
      continue
    }
    const inObject = stack[stack.length - 1] === 123
    if (expect === Expect.Colon) {
      if (c !== 58) return { kind: 'invalid' }
      expect = Expect.Value
      i++
      continue
    }
    if (expect === Expect.CommaOrClose) {
      if (c === 44) {
        expect = inObject ? Expect.Key : Expect.Value
        i++
        continue
      }
      if (c !== (inObject ? 125 : 93)) return { kind: 'invalid' }
      stack.pop()
      i++
      const done = afterValue(i)
      if (done) return done
      expect = Expect.CommaOrClose
      continue
    }
    if (expect === Expect.Key || expect === Expect.KeyOrClose) {
      if (c === 125 && expect === Expect.KeyOrClose) {
        stack.pop()
        i++
        const done = afterValue(i)
        if (done) return done
        expect = Expect.CommaOrClose
        continue
      }
      if (c !== 34) return { kind: 'invalid' }
      const e = stringEnd(text, i + 1)
      if (e === false) return { kind: 'invalid' }
      if (e === -1) return { kind: 'open' }
      expect = Expect.Colon
      i = e
      continue
    }
    // a value (or `]` right after `[`)
    if (c === 93 && expect === Expect.ValueOrClose) {
      stack.pop()
      i++
      const done = afterValue(i)
      if (done) return done
      expect = Expect.CommaOrClose
      continue
    }
    if (c === 123 || c === 91) {
      stack.push(c)
      expect = c === 123 ? Expect.KeyOrClose : Expect.ValueOrClose
      i++
      continue
    }
    let e: number | false
    if (c === 34) e = stringEnd(text, i + 1)
    else e = scalarEnd(text, i)
    if (e === false) return { kind: 'invalid' }
    if (e === -1) return { kind: 'open' }
    i = e
    const done = afterValue(i)
    if (done) return done
    expect = Expect.CommaOrClose
  }
  return { kind: 'open' }
}
