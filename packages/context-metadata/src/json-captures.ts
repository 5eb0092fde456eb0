/**
 * Raw copies of the first child of containers near the root, kept by the JSON shape scan for
 * samples: each copy is the value's text as the file has it, at most {@link CAPTURE_CHARS}
 * characters, gathered across chunks.
 */
import { CAPTURE_CHARS, type ContainerShape } from './json-shape.js'

/** Containers near the root whose first child is captured. */
const MAX_CAPTURES = 12

interface Capture {
  parts: string[]
  len: number
  /** Start index in the current chunk. */
  from: number
  /** Depth at which the captured value sits (the value ends when depth returns here). */
  depth: number
  shape: ContainerShape
  cut: boolean
}

/** The captures in progress; the scan tells it where values start and end. */
export class FirstChildCaptures {
  private open: Capture[] = []
  private started = 0

  /** A new chunk: open captures continue from its first character. */
  newChunk(): void {
    for (const c of this.open) c.from = 0
  }

  /** `true` while a capture of a value at `depth` is open. */
  openAt(depth: number): boolean {
    return this.open.some((c) => c.depth === depth)
  }

  /** The first child of `shape` starts at `at`, at `depth` (ignored past the cap). */
  start(at: number, depth: number, shape: ContainerShape): void {
    if (this.started >= MAX_CAPTURES) return
    this.started++
    this.open.push({ parts: [], len: 0, from: at, depth, shape, cut: false })
  }

  /** A value ended at `end` (exclusive) with the depth now `depth`, its parent's. */
  end(s: string, end: number, depth: number): void {
    if (this.open.length === 0) return
    for (const c of this.open) {
      if (c.depth !== depth) continue
      append(c, s.slice(c.from, end))
      c.shape.first = c.parts.join('')
      if (c.cut) c.shape.firstCut = true
      c.depth = -1
    }
    this.open = this.open.filter((c) => c.depth !== -1)
  }

  /** The chunk ended: keep what the open captures hold of it. */
  flush(s: string): void {
    for (const c of this.open) append(c, s.slice(c.from))
  }
}

function append(c: Capture, text: string): void {
  if (c.cut) return
  const room = CAPTURE_CHARS - c.len
  if (text.length > room) {
    c.parts.push(text.slice(0, room))
    c.len = CAPTURE_CHARS
    c.cut = true
  } else {
    c.parts.push(text)
    c.len += text.length
  }
}
