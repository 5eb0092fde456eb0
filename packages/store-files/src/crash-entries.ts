import type { SessionMessageEntry } from '@contextkit/core'

/** A cheap deterministic pseudo-random number for entry `n` (xorshift of n). */
function hash(n: number): number {
  let x = (n + 1) * 2654435761
  x ^= x >>> 13
  x = Math.imul(x, 0x5bd1e995)
  x ^= x >>> 15
  return x >>> 0
}

/**
 * The `n`-th message entry the crash writer appends: sizes from a few bytes to 1.5 MB, so a
 * kill often lands inside a write, and text with multi-byte characters, so a torn line can end
 * inside one.
 */
export function expectedEntry(n: number): SessionMessageEntry {
  const size = hash(n) % 4 === 0 ? 500_000 + (hash(n) % 1_000_000) : hash(n) % 2048
  const text = `entry ${n} ✓ 漢字🙂 ${'abcdefghij'.repeat(Math.ceil(size / 10))}`.slice(
    0,
    size + 16,
  )
  return {
    type: 'message',
    id: `e-${n}`,
    parentId: n === 0 ? null : `e-${n - 1}`,
    ts: new Date(Date.UTC(2026, 0, 1, 0, 0, 0, n)).toISOString(),
    message: { role: n % 2 === 0 ? 'user' : 'assistant', content: [{ type: 'text', text }] },
  } as SessionMessageEntry
}
