/** Helpers shared by this package's tests (not exported from the package). */

/** Split `text` at the given cut points (taken modulo its length + 1, sorted, deduplicated). */
export function chunksOf(text: string, cuts: number[]): string[] {
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
