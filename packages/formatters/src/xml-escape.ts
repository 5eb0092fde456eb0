import { assertString } from '@contextkit/core'

const ELEMENT_SPECIAL = /[&<>]/
const ATTRIBUTE_SPECIAL = /[&<>"]/

/** Escape `&`, `<` and `>` so text can sit inside an XML element. */
export function escapeXml(text: string): string {
  assertString(text, 'escapeXml', 'text')
  return ELEMENT_SPECIAL.test(text) ? replaceSpecials(text, false) : text
}

/** Escape text for a double-quoted XML attribute. */
export function escapeXmlAttribute(text: string): string {
  return ATTRIBUTE_SPECIAL.test(text) ? replaceSpecials(text, true) : text
}

/** One left-to-right pass: `&`, `<`, `>` (and `"` when `quotes`) as entity references. */
function replaceSpecials(text: string, quotes: boolean): string {
  let out = ''
  let last = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    let ref: string
    if (c === 38) ref = '&amp;'
    else if (c === 60) ref = '&lt;'
    else if (c === 62) ref = '&gt;'
    else if (c === 34 && quotes) ref = '&quot;'
    else continue
    out += text.slice(last, i) + ref
    last = i + 1
  }
  return out + text.slice(last)
}

const NAMED: Readonly<Record<string, string>> = {
  lt: '<',
  gt: '>',
  amp: '&',
  quot: '"',
  apos: "'",
}

function decodeReference(ref: string): string | undefined {
  if (ref.charCodeAt(0) === 35) {
    const hex = ref.charCodeAt(1) === 120
    const digits = ref.slice(hex ? 2 : 1)
    if (digits === '' || !(hex ? /^[0-9a-fA-F]{1,6}$/ : /^[0-9]{1,7}$/).test(digits))
      return undefined
    const code = Number.parseInt(digits, hex ? 16 : 10)
    return code <= 0x10ffff ? String.fromCodePoint(code) : undefined
  }
  return Object.hasOwn(NAMED, ref) ? NAMED[ref] : undefined
}

/**
 * Undo XML escaping: the five named entities and numeric references (`&#60;`, `&#x3C;`).
 * Anything else that starts with `&` (e.g. `a && b`, `&nbsp;`) is kept as written.
 * One left-to-right pass with `indexOf`.
 */
export function unescapeXml(text: string): string {
  assertString(text, 'unescapeXml', 'text')
  let amp = text.indexOf('&')
  if (amp < 0) return text
  let out = ''
  let last = 0
  while (amp >= 0) {
    const semi = text.indexOf(';', amp + 2)
    if (semi < 0) break
    const decoded = semi - amp <= 9 ? decodeReference(text.slice(amp + 1, semi)) : undefined
    if (decoded === undefined) {
      amp = text.indexOf('&', amp + 1)
      continue
    }
    out += text.slice(last, amp) + decoded
    last = semi + 1
    amp = text.indexOf('&', last)
  }
  return out + text.slice(last)
}
