/**
 * Pacing of the native "run" matches the CSV counter and the JSON scan try (64 records or
 * elements in one regular-expression match): after a miss the next tries wait for 1, 2, 4, …
 * up to 1,024 chances, so text the runs never fit costs little; and each try reads a bounded
 * view of the text, sized from the last run, so a failed try never reads megabytes.
 */

/** Items (records, elements) per try of the long run pattern. */
export const RUN = 64
const MAX_BACKOFF = 1024
const MIN_WINDOW = 1 << 16
const MAX_WINDOW = 1 << 22

/** When to try a run, and how many characters a try may read. */
export class RunPacer {
  private wait = 0
  private backoff = 1
  /** Characters a try reads: room for {@link RUN} items 4× as long as the last run's. */
  window = MIN_WINDOW

  /** `true` when a try is due at this chance; otherwise the chance is counted. */
  due(): boolean {
    if (this.wait === 0) return true
    this.wait--
    return false
  }

  /** A try matched `count` items over `length` characters. */
  hit(count: number, length: number): void {
    this.backoff = 1
    const perItem = length / count
    this.window = Math.min(MAX_WINDOW, Math.max(MIN_WINDOW, Math.ceil(perItem * RUN * 4)))
  }

  /** A try matched nothing. */
  miss(): void {
    this.wait = this.backoff
    this.backoff = Math.min(this.backoff * 2, MAX_BACKOFF)
  }
}

/**
 * The text a try at `from` reads: `s` itself, or a slice of the next `window` characters (a
 * slice shares the text, nothing is copied). Match it from `at`; its end in `s` is
 * `from + lastIndex - at`.
 */
export function viewOf(s: string, from: number, window: number): { view: string; at: number } {
  return s.length - from > window
    ? { view: s.slice(from, from + window), at: 0 }
    : { view: s, at: from }
}

const RELEASE = /^/

/**
 * Lets go of the text of the last regular-expression match. V8 keeps the subject of the last
 * successful match (for `RegExp.lastMatch`, `RegExp.$1`, …), so after a chunk's last run it
 * would keep that chunk alive through the next scavenge, which then moves it to the old
 * generation: `analyzeFile` peaked ~50 MB higher (+55 MB over 3 GB of CSV against +10 MB).
 * One match on an empty string replaces it. Call it when a chunk is done.
 */
export function releaseLastMatch(): void {
  RELEASE.test('')
}
