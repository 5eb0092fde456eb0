// The large NDJSON file both file benches write (analyze-file.bench.ts and file-vs-wc.ts).
import { closeSync, openSync, writeSync } from 'node:fs'

const MiB = 1024 * 1024

/** Write ~`size` bytes of NDJSON: a 1 MiB block of distinct records (with non-ASCII text), repeated. */
export function writeNdjson(path: string, size: number): void {
  const lines: string[] = []
  let n = 0
  for (let i = 0; n < MiB; i++) {
    const line = JSON.stringify({
      id: i,
      author: `did:plc:user${i % 997}`,
      text: `Post ${i}: Arsenal win ${i % 5}-${i % 3}, "what a game" é 😀`,
      profile: { name: `User ${i % 997}` },
    })
    lines.push(line)
    n += Buffer.byteLength(line) + 1
  }
  const block = Buffer.from(`${lines.join('\n')}\n`)
  const fd = openSync(path, 'w')
  try {
    for (let written = 0; written < size; written += block.length) writeSync(fd, block)
  } finally {
    closeSync(fd)
  }
}
