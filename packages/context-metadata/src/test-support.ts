// Test support (not exported): a byte-count buffer fed from an in-memory file, as analyzeFile
// feeds it from disk.
import { ByteCounts, byteCountBuffer } from './byte-counters.js'

/**
 * The buffer `countBytes` reads into (sized for a `sniff`-byte window and `chunk`-byte reads),
 * its counters (WebAssembly when `wasm`, else the JavaScript ones over the same buffer), and a
 * `read` that copies the next bytes of `bytes` into it, like a file handle's `read`.
 */
export function memoryReader(bytes: Buffer, sniff: number, chunk: number, wasm: boolean) {
  const made = byteCountBuffer(Math.max(sniff, chunk + 3))
  const { buffer } = made
  const counts = wasm
    ? made.counts
    : new ByteCounts(buffer, undefined, new Int32Array(buffer.length), 0)
  let at = 0
  const read = async (length: number, offset: number): Promise<number> => {
    const n = Math.min(length, bytes.length - at)
    bytes.copy(buffer, offset, at, at + n)
    at += n
    return n
  }
  /** Every byte has been read. */
  const atEnd = (): boolean => at === bytes.length
  return { buffer, counts, read, atEnd }
}
