/**
 * Writes response bytes the way a test asks: whole frames or fixed-size pieces (down to one
 * byte), with optional delays; and resets connections.
 */
import type { ServerResponse } from 'node:http'
import { setTimeout as sleep } from 'node:timers/promises'

/** Resolved write settings. */
export interface WritePlan {
  /** Bytes per write; `undefined` writes each frame whole. */
  writeSize: number | undefined
  /** Delay between writes in ms. */
  chunkDelayMs: number
}

/** Cuts frames into the pieces to write: whole frames, or `writeSize`-byte slices of their concatenation. */
export function planChunks(frames: readonly string[], writeSize: number | undefined): Buffer[] {
  if (writeSize === undefined) return frames.map((f) => Buffer.from(f, 'utf8'))
  const all = Buffer.from(frames.join(''), 'utf8')
  const size = Math.max(1, Math.floor(writeSize))
  const out: Buffer[] = []
  for (let i = 0; i < all.length; i += size) out.push(all.subarray(i, i + size))
  return out
}

function writeOne(res: ServerResponse, chunk: Buffer): Promise<boolean> {
  return new Promise((resolve) => {
    if (res.destroyed || res.writableEnded) return resolve(false)
    const onClose = (): void => resolve(false)
    res.once('close', onClose)
    res.write(chunk, (err) => {
      res.off('close', onClose)
      resolve(!err)
    })
  })
}

/**
 * Writes `chunks` in order, waiting for each write to flush (and `chunkDelayMs` between them).
 * Returns `false` if the client went away or `signal` aborted (the emulator is closing).
 */
export async function writeChunks(
  res: ServerResponse,
  chunks: readonly Buffer[],
  plan: WritePlan,
  signal: AbortSignal,
): Promise<boolean> {
  for (let i = 0; i < chunks.length; i++) {
    if (signal.aborted) return false
    if (i > 0 && plan.chunkDelayMs > 0 && !(await pause(plan.chunkDelayMs, signal))) return false
    if (!(await writeOne(res, chunks[i]!))) return false
  }
  return true
}

/** Waits `ms`; `false` when `signal` aborted first. */
export async function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  if (ms <= 0) return !signal.aborted
  try {
    await sleep(ms, undefined, { signal })
    return true
  } catch {
    return false
  }
}

/** Resets the TCP connection (RST) after flushing what was written. */
export function resetConnection(res: ServerResponse): void {
  const socket = res.socket
  if (!socket || socket.destroyed) return
  if (typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy()
  else socket.destroy()
}
