import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, extname, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { analyzeFile } from './analyze-file.js'
import {
  type CorpusFile,
  emptyScore,
  formatScore,
  judge,
  packageFiles,
  type Score,
  tally,
  truthOf,
  writeDerivedFiles,
} from './real-corpus.js'

let dir: string
let files: CorpusFile[]
const byName = emptyScore()
const byContent = emptyScore()

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ctxmeta-corpus-'))
  files = [...packageFiles(), ...writeDerivedFiles(dir)]
  for (const f of files) {
    const truth = truthOf(f.path)
    tally(byName, f.label, truth.kind, judge(await analyzeFile(f.path), truth))
    // by content: the same file under a name without an extension
    const bare = basename(f.path, extname(f.path))
    tally(
      byContent,
      f.label,
      truth.kind,
      judge(await analyzeFile(f.path, { fileName: bare }), truth),
    )
  }
}, 300_000)

afterAll(() => {
  rmSync(dir, { recursive: true, force: true })
})

/** Classes and the share of their files that must be fully right. */
const FLOORS: Record<string, number> = {
  binary: 1,
  code: 1,
  csv: 1,
  'json-array': 1,
  'json-object': 1,
  map: 1,
  markdown: 1,
  ndjson: 1,
  tsv: 1,
}

function checkFloors(score: Score): void {
  const report = `${formatScore('score', score)}\n${score.failures
    .map((f) => `  ${f.label}: ${f.wrong.join('; ')}`)
    .join('\n')}`
  for (const [kind, floor] of Object.entries(FLOORS)) {
    const s = score.byKind[kind]
    expect(s, `class ${kind} is in the corpus`).toBeDefined()
    expect(s!.right / s!.total, `${kind}\n${report}`).toBeGreaterThanOrEqual(floor)
  }
}

describe('the real-data corpus (vega-datasets, world-atlas, countries-list, and files derived from them)', () => {
  test('it holds every class, over a hundred files', () => {
    expect(files.length).toBeGreaterThanOrEqual(120)
    expect(Object.keys(byName.byKind).sort()).toEqual(Object.keys(FLOORS).sort())
  })

  test('by name: every class at its floor (fully right: format, counts, fields, keys, arrays)', () => {
    checkFloors(byName)
  })

  test('by content alone (no extension): every class at its floor', () => {
    checkFloors(byContent)
  })
})
