import { assertArray } from '@contextkit/core'
/** What {@link StopScanner.push} or {@link StopScanner.flush} released. */
export interface ScanResult {
  /** Text that is certainly before any stop sequence. */
  text: string
  /** The stop sequence that matched (the text after it is dropped). */
  stop?: string
}

/**
 * Finds stop sequences in streamed text, across chunk boundaries, with the result a scan of the
 * whole text would give — the earliest match, the longest on a tie — however the text is cut:
 * text is released as soon as no stop sequence can start in it, and a match waits while a stop
 * that would win could still complete. The stop sequence itself is not released (as with the
 * Messages API). Servers cut at the stop sequences they were sent; this catches the ones a server
 * was not sent (OpenAI-compatible servers take at most four) or ignored.
 */
export class StopScanner {
  readonly #stops: string[]
  #held = ''
  #stopped: string | undefined

  constructor(stops: readonly string[]) {
    assertArray(stops, 'new StopScanner', 'stops')
    this.#stops = [...new Set(stops.filter((s) => s !== ''))]
  }

  /** The stop sequence that matched, once one did. */
  get stopped(): string | undefined {
    return this.#stopped
  }

  /**
   * Feed the next chunk; returns the text that is safe to emit (held back while it may start a
   * stop sequence) and the stop sequence once one matched.
   */
  push(chunk: string): ScanResult {
    if (this.#stopped !== undefined) return { text: '' }
    const buffer = this.#held + chunk
    const match = this.#earliest(buffer)
    const open = this.#openStart(buffer, match?.at ?? buffer.length, match?.stop.length ?? 0)
    if (match && open === undefined) return this.#commit(buffer, match)
    const keep = Math.min(open ?? buffer.length, match?.at ?? buffer.length)
    this.#held = buffer.slice(keep)
    return { text: buffer.slice(0, keep) }
  }

  /** End of the stream: release what was held back (up to a stop sequence in it). */
  flush(): ScanResult {
    if (this.#stopped !== undefined) return { text: '' }
    const buffer = this.#held
    this.#held = ''
    const match = this.#earliest(buffer)
    return match ? this.#commit(buffer, match) : { text: buffer }
  }

  #commit(buffer: string, match: { at: number; stop: string }): ScanResult {
    this.#held = ''
    this.#stopped = match.stop
    return { text: buffer.slice(0, match.at), stop: match.stop }
  }

  /** The earliest complete stop sequence in `buffer` (the longest on a tie). */
  #earliest(buffer: string): { at: number; stop: string } | undefined {
    let best: { at: number; stop: string } | undefined
    for (const stop of this.#stops) {
      const at = buffer.indexOf(stop)
      if (at < 0) continue
      if (!best || at < best.at || (at === best.at && stop.length > best.stop.length))
        best = { at, stop }
    }
    return best
  }

  /**
   * The first position before `limit` (or at it, for a stop longer than `length`) where a stop
   * sequence has started but not yet completed: more text could make it match there.
   */
  #openStart(buffer: string, limit: number, length: number): number | undefined {
    const from = Math.max(0, buffer.length - this.#longest() + 1)
    for (let p = from; p <= Math.min(limit, buffer.length - 1); p++) {
      const tail = buffer.slice(p)
      for (const stop of this.#stops) {
        if (stop.length <= tail.length || !stop.startsWith(tail)) continue
        if (p < limit || stop.length > length) return p
      }
    }
    return undefined
  }

  #longest(): number {
    let n = 0
    for (const s of this.#stops) n = Math.max(n, s.length)
    return n
  }
}
