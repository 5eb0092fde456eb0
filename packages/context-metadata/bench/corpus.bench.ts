import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, extname, join } from 'node:path'
import { afterAll, bench, describe } from 'vitest'
import { analyzeFile } from '../src/analyze-file.js'
import {
  emptyScore,
  formatScore,
  judge,
  packageFiles,
  tally,
  truthOf,
  writeDerivedFiles,
} from '../src/real-corpus.js'

const dir = mkdtempSync(join(tmpdir(), 'ctxmeta-corpus-bench-'))
const files = [...packageFiles(), ...writeDerivedFiles(dir)]
const truths = files.map((f) => truthOf(f.path))
let printed = false

afterAll(() => {
  rmSync(dir, { recursive: true, force: true })
})

/** Analyze every corpus file (by name and by content), score it once, print the score. */
async function run(): Promise<void> {
  const byName = emptyScore()
  const byContent = emptyScore()
  for (const [i, f] of files.entries()) {
    const truth = truths[i]!
    tally(byName, f.label, truth.kind, judge(await analyzeFile(f.path), truth))
    const bare = basename(f.path, extname(f.path))
    tally(
      byContent,
      f.label,
      truth.kind,
      judge(await analyzeFile(f.path, { fileName: bare }), truth),
    )
  }
  if (printed) return
  printed = true
  console.log(`[corpus.bench] ${files.length} real files`)
  console.log(
    `[corpus.bench] ${formatScore('by name', byName).replace(/\n/g, '\n[corpus.bench] ')}`,
  )
  console.log(
    `[corpus.bench] ${formatScore('by content', byContent).replace(/\n/g, '\n[corpus.bench] ')}`,
  )
  for (const f of [...byName.failures, ...byContent.failures]) {
    console.log(`[corpus.bench] wrong: ${f.label}: ${f.wrong.join('; ')}`)
  }
}

describe('real-data corpus', () => {
  bench('analyzeFile over every corpus file, by name and by content', run, {
    iterations: 3,
    time: 0,
  })
})
