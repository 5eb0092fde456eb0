/**
 * Whether the UTF-16 code unit `code` is white space: exactly the set `String.prototype.trim` and
 * the regular-expression class `\s` remove (ASCII tab to carriage return, space, no-break space,
 * the Unicode space separators, line and paragraph separators, and the byte order mark).
 * `NaN` (what `charCodeAt` answers past the end) is not space.
 */
export function isSpace(code: number): boolean {
  return (
    typeof code === 'number' &&
    (code === 0x20 ||
      (code >= 0x09 && code <= 0x0d) ||
      code === 0xa0 ||
      code === 0x1680 ||
      (code >= 0x2000 && code <= 0x200a) ||
      code === 0x2028 ||
      code === 0x2029 ||
      code === 0x202f ||
      code === 0x205f ||
      code === 0x3000 ||
      code === 0xfeff)
  )
}
