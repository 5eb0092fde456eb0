import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { bench, describe } from 'vitest'
import { buildPreloadedFiles } from '../src/preloaded-files.js'
import { readWithinRoot } from '../src/read-within-root.js'

// For information (no goal): the cost of the safe read path on disk.
const root = mkdtempSync(path.join(tmpdir(), 'preload-bench-'))
mkdirSync(path.join(root, 'src'))
const names = Array.from({ length: 100 }, (_, i) => `src/file-${i}.ts`)
for (const name of names) {
  writeFileSync(path.join(root, name), `export const x = 1 // ${name}\n`.repeat(50))
}

describe('disk reads (information only)', () => {
  bench('readWithinRoot, one 2 KB file', async () => {
    const r = await readWithinRoot(root, 'src/file-0.ts')
    if (!r.ok) throw r.error
  })
  bench('buildPreloadedFiles, 100 files of 50 lines', async () => {
    await buildPreloadedFiles(names, { root, budgetTokens: 1_000_000 })
  })
})
