import type { FileHandle } from 'node:fs/promises'
import { errnoCode } from '@contextkit/core'
import { openWithinRoot } from '@contextkit/core/node'

/** Bytes read at a time, forwards or backwards. */
export const BLOCK_BYTES = 64 * 1024

const NEWLINE = 0x0a

/**
 * Open `rel` inside `root` for reading (core's `openWithinRoot`: no symlink followed below the
 * root); `null` when there is no such file.
 */
export async function openJsonl(root: string, rel: string): Promise<FileHandle | null> {
  try {
    return (await openWithinRoot(root, rel)).handle
  } catch (error) {
    if (errnoCode(error) === 'ENOENT' || errnoCode(error) === 'ENOTDIR') return null
    throw error
  }
}

/** Size in bytes of a file, or `0` when it does not exist. */
export async function sizeOf(root: string, rel: string): Promise<number> {
  const handle = await openJsonl(root, rel)
  if (!handle) return 0
  try {
    return (await handle.stat()).size
  } finally {
    await handle.close().catch(() => {})
  }
}

async function readAt(handle: FileHandle, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.allocUnsafe(length)
  let done = 0
  while (done < length) {
    const { bytesRead } = await handle.read(buffer, done, length - done, position + done)
    if (bytesRead === 0) break
    done += bytesRead
  }
  return buffer.subarray(0, done)
}

/**
 * Call `onLine` with every whole line (ended by `\n`) between byte `from` and `end`, in order.
 * Returns the offset after the last whole line: a line still being written is left for the next
 * call. Memory: one block and the longest line.
 */
export async function forwardLines(
  handle: FileHandle,
  from: number,
  end: number,
  onLine: (line: string) => void,
): Promise<number> {
  let pos = from
  let carry: Buffer = Buffer.alloc(0)
  let consumed = from
  while (pos < end) {
    const block = await readAt(handle, pos, Math.min(BLOCK_BYTES, end - pos))
    if (block.length === 0) break
    pos += block.length
    const bytes = carry.length > 0 ? Buffer.concat([carry, block]) : block
    let start = 0
    for (let nl = bytes.indexOf(NEWLINE); nl >= 0; nl = bytes.indexOf(NEWLINE, start)) {
      onLine(bytes.toString('utf8', start, nl))
      start = nl + 1
    }
    consumed += start
    carry = Buffer.from(bytes.subarray(start))
  }
  return consumed
}

/** Offset of the last `\n` before byte `end`, or `-1` when there is none. */
async function lastNewline(handle: FileHandle, end: number): Promise<number> {
  for (let pos = end; pos > 0; ) {
    const from = Math.max(0, pos - BLOCK_BYTES)
    const block = await readAt(handle, from, pos - from)
    const at = block.lastIndexOf(NEWLINE)
    if (at >= 0) return from + at
    pos = from
  }
  return -1
}

/**
 * Call `onLine` with every whole line before byte `end`, newest first, until it returns `false`.
 * A last line without its `\n` (being written) is skipped. Memory: one block and the longest
 * line, whatever the file's length.
 */
export async function backwardLines(
  handle: FileHandle,
  end: number,
  onLine: (line: string) => boolean,
): Promise<void> {
  let pos = await lastNewline(handle, end)
  if (pos < 0) return
  let carry: Buffer = Buffer.alloc(0)
  while (pos > 0) {
    const from = Math.max(0, pos - BLOCK_BYTES)
    const block = await readAt(handle, from, pos - from)
    pos = from
    const bytes = carry.length > 0 ? Buffer.concat([block, carry]) : block
    let stop = bytes.length
    for (let nl = bytes.lastIndexOf(NEWLINE, stop - 1); nl >= 0 && stop > 0; ) {
      if (!onLine(bytes.toString('utf8', nl + 1, stop))) return
      stop = nl
      nl = stop > 0 ? bytes.lastIndexOf(NEWLINE, stop - 1) : -1
    }
    carry = Buffer.from(bytes.subarray(0, stop))
  }
  onLine(carry.toString('utf8'))
}
