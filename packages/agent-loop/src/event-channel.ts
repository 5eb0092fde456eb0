/**
 * A buffered, replayable event stream: every iterator starts from the first event, so events are
 * never lost whether they are read during the run, after it, or not at all.
 */
export class EventChannel<T> implements AsyncIterable<T> {
  readonly #events: T[] = []
  #closed = false
  #waiters: Array<() => void> = []

  push(event: T): void {
    if (this.#closed) return
    this.#events.push(event)
    this.#wake()
  }

  close(): void {
    this.#closed = true
    this.#wake()
  }

  #wake(): void {
    const waiters = this.#waiters
    this.#waiters = []
    for (const w of waiters) w()
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    let i = 0
    while (true) {
      if (i < this.#events.length) {
        yield this.#events[i++]!
        continue
      }
      if (this.#closed) return
      await new Promise<void>((resolve) => this.#waiters.push(resolve))
    }
  }
}
