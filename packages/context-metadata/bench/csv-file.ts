// The large CSV file `file-vs-wc.ts --csv` writes.
import { closeSync, openSync, writeSync } from 'node:fs'

const MiB = 1024 * 1024

/**
 * Write ~`size` bytes of CSV: a header, then a 1 MiB block of rows repeated, a third of them
 * with a quoted comment holding a comma, a line break and `""` quotes, and non-ASCII text.
 */
export function writeCsv(path: string, size: number): void {
  const rows: string[] = []
  let n = 0
  for (let i = 0; n < MiB; i++) {
    const comment =
      i % 3 === 0 ? `"line one, with comma\nline two ""quoted"" é ${i}"` : `plain comment 😀 ${i}`
    const row = `${i},"Name ${i}",${comment},${(i * 7) % 100}`
    rows.push(row)
    n += Buffer.byteLength(row) + 1
  }
  const block = Buffer.from(`${rows.join('\n')}\n`)
  const fd = openSync(path, 'w')
  try {
    writeSync(fd, 'id,name,comment,score\n')
    for (let written = 0; written < size; written += block.length) writeSync(fd, block)
  } finally {
    closeSync(fd)
  }
}
