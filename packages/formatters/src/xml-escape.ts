/** Escape `&`, `<` and `>` so text can sit inside an XML element. */
export function escapeXml(text: string): string {
  if (!/[&<>]/.test(text)) return text
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;')
}

/** Escape text for a double-quoted XML attribute. */
export function escapeXmlAttribute(text: string): string {
  return escapeXml(text).replaceAll('"', '&quot;')
}

const NAMED: Readonly<Record<string, string>> = {
  lt: '<',
  gt: '>',
  amp: '&',
  quot: '"',
  apos: "'",
}

/**
 * Undo XML escaping: the five named entities and numeric references (`&#60;`, `&#x3C;`).
 * Anything else that starts with `&` (e.g. `a && b`) is kept as written.
 */
export function unescapeXml(text: string): string {
  if (!text.includes('&')) return text
  return text.replace(/&(#x[0-9a-fA-F]{1,6}|#[0-9]{1,7}|[a-z]{2,4});/g, (whole, ref: string) => {
    if (ref.startsWith('#x') || ref.startsWith('#')) {
      const code = ref.startsWith('#x') ? Number.parseInt(ref.slice(2), 16) : Number(ref.slice(1))
      return code <= 0x10ffff ? String.fromCodePoint(code) : whole
    }
    return NAMED[ref] ?? whole
  })
}
