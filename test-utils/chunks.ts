/**
 * Split `text` into consecutive chunks at the given cut points (each taken modulo
 * `text.length + 1`, then sorted and de-duplicated), so any list of numbers from fast-check is a
 * valid chunking. Joining the chunks gives `text` back; empty chunks appear where cuts repeat an
 * end. Used by every "any chunking gives the same result" property.
 */
export function chunksOf(text: string, cuts: readonly number[]): string[] {
  const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b)
  const out: string[] = []
  let prev = 0
  for (const p of points) {
    out.push(text.slice(prev, p))
    prev = p
  }
  out.push(text.slice(prev))
  return out
}
