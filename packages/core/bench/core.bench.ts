import { estimateTokenCount } from 'tokenx'
import { bench, describe } from 'vitest'
import { createTokenCounter, defaultTokenCounter, fitSections, type Section } from '../src/index.js'

// 1,000 sections of ~250 characters (prompt-sized pieces), fresh texts every iteration so no
// count is cached between runs.
let round = 0
function makeSections(): Section[] {
  round++
  return Array.from({ length: 1000 }, (_, i) => ({
    id: `s${i}`,
    text: `## Section ${round}-${i}\nNotes about src/file${i}.ts: keep the parser linear, const x = ${i};\n`.repeat(
      3,
    ),
    priority: i % 7,
    cache: i % 2 === 0 ? 'stable' : 'volatile',
    shorter: [`## Section ${round}-${i} (summary)`],
  }))
}

describe('fitSections over 1,000 sections (goal ≤ 10 ms)', () => {
  bench('budget forces shortening and drops', () => {
    fitSections(makeSections(), 20_000, defaultTokenCounter)
  })
  bench('everything fits', () => {
    fitSections(makeSections(), 10_000_000, defaultTokenCounter)
  })
})

const corpus = [
  'The agent reads the workspace files, plans its edits and then writes them in one batch.\n',
  'export const fit = (s: Section[], b: number) => s.filter((x) => x.priority > b)\n',
  '{"id":42,"name":"user42","tags":["a","b"],"nested":{"ok":true}}\n',
  '日本語のテキストです。これは長い文章になります。\n',
]
  .join('')
  .repeat(20_000) // ≈ 5 MB
const counter = createTokenCounter({ safetyFactor: 1.1 })

describe(`default counter throughput on ${(corpus.length / 1e6).toFixed(1)} MB (goal ≥ 5 MB/s)`, () => {
  bench('contextkit estimator', () => {
    counter.count(corpus)
  })
  bench('tokenx (reference)', () => {
    estimateTokenCount(corpus)
  })
})
