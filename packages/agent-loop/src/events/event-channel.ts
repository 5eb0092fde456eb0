import { invalidArgument } from '@contextkit/core'

/** Options of {@link EventChannel}. */
export interface EventChannelOptions {
  /**
   * How many events the channel holds that no reader has read yet: before the first reader
   * starts (so a reader that starts late still gets the last `capacity` events), and the lag
   * above which {@link EventChannel.desiredSize} turns non-positive (backpressure). Default `1024`.
   */
  capacity?: number
  /** Keep every event, so each new iterator replays from the first one. Default `false`. */
  replay?: boolean
}

/** Where one iterator stands: the absolute index of the next event it reads. */
interface Reader {
  at: number
}

/**
 * A bounded event stream with backpressure. An event is held until every running iterator has
 * read it, then released, so a run read live keeps a handful of events in memory however long
 * it is (a run of 10,000 text deltas read live: 357 KiB held after it, against 900 KiB when every
 * event was kept; README "runAgent"). With no iterator running, only the last
 * `capacity` events are kept (the older ones are counted in {@link EventChannel.dropped}); an
 * iterator starts at the oldest event still held. `replay: true` keeps every event instead,
 * and every iterator starts from the first.
 *
 * `push` never blocks; a producer that wants backpressure awaits {@link EventChannel.ready}
 * (it resolves once the slowest running iterator is fewer than `capacity` events behind).
 */
export class EventChannel<T> implements AsyncIterable<T> {
  readonly #capacity: number
  readonly #replay: boolean
  /** Held events: `#buffer[#head]` is the event with absolute index `#base`. */
  #buffer: T[] = []
  #head = 0
  #base = 0
  #dropped = 0
  #closed = false
  readonly #readers = new Set<Reader>()
  #waiters: Array<() => void> = []
  #readyWaiters: Array<() => void> = []

  constructor(options: EventChannelOptions = {}) {
    const capacity = options.capacity ?? 1024
    if (!Number.isInteger(capacity) || capacity < 1) {
      invalidArgument('EventChannel', 'capacity', 'a positive integer', capacity)
    }
    this.#capacity = capacity
    this.#replay = options.replay === true
  }

  /** Absolute index of the next event pushed. */
  get #end(): number {
    return this.#base + this.#buffer.length - this.#head
  }

  /** Events held now. */
  get size(): number {
    return this.#buffer.length - this.#head
  }

  /** Events released unread because no iterator was running and more than `capacity` waited. */
  get dropped(): number {
    return this.#dropped
  }

  /**
   * How many more events the slowest running iterator can fall behind before the producer
   * should wait (`capacity` when none is running, or after `close`).
   */
  get desiredSize(): number {
    if (this.#closed || this.#readers.size === 0) return this.#capacity
    let slowest = this.#end
    for (const r of this.#readers) slowest = Math.min(slowest, r.at)
    return this.#capacity - (this.#end - slowest)
  }

  /** Resolves when {@link EventChannel.desiredSize} is positive (at once when it already is). */
  ready(): Promise<void> {
    if (this.desiredSize > 0) return Promise.resolve()
    return new Promise((resolve) => this.#readyWaiters.push(resolve))
  }

  /** Add an event (ignored after `close`). Never blocks: see {@link EventChannel.ready}. */
  push(event: T): void {
    if (this.#closed) return
    this.#buffer.push(event)
    this.#release()
    this.#wake()
  }

  /** End the stream: iterators finish after the events they have not read yet. */
  close(): void {
    this.#closed = true
    this.#wake()
    this.#wakeReady()
  }

  /** Release what no running iterator needs (with none running: all but the last `capacity`). */
  #release(): void {
    if (this.#replay) return
    let keepFrom = this.#end - this.#capacity
    if (this.#readers.size > 0) {
      keepFrom = this.#end
      for (const r of this.#readers) keepFrom = Math.min(keepFrom, r.at)
    } else if (keepFrom > this.#base) {
      this.#dropped += keepFrom - this.#base
    }
    if (keepFrom <= this.#base) return
    this.#head += keepFrom - this.#base
    this.#base = keepFrom
    // compact once the released prefix is most of the array (amortised O(1) per event)
    if (this.#head > 64 && this.#head * 2 > this.#buffer.length) {
      this.#buffer = this.#buffer.slice(this.#head)
      this.#head = 0
    }
  }

  #wake(): void {
    const waiters = this.#waiters
    this.#waiters = []
    for (const w of waiters) w()
  }

  #wakeReady(): void {
    if (this.#readyWaiters.length === 0 || this.desiredSize <= 0) return
    const waiters = this.#readyWaiters
    this.#readyWaiters = []
    for (const w of waiters) w()
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    const reader: Reader = { at: this.#base }
    this.#readers.add(reader)
    try {
      while (true) {
        if (reader.at < this.#end) {
          const event = this.#buffer[this.#head + (reader.at - this.#base)] as T
          reader.at++
          this.#release()
          this.#wakeReady()
          yield event
          continue
        }
        if (this.#closed) return
        await new Promise<void>((resolve) => this.#waiters.push(resolve))
      }
    } finally {
      this.#readers.delete(reader)
      this.#release()
      this.#wakeReady()
    }
  }
}
