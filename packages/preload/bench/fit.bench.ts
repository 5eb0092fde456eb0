import { createTokenCounter, fitSections, type Section } from '@contextkit/core'
import { bench, describe } from 'vitest'
import { fitPassLadder } from '../src/pass-ladder.js'
import { preloadSectionId, renderPreloadedFile } from '../src/preloaded-files.js'

// 1,000 candidate files of 20–200 lines of code-like text (≈ 1–10 KB each), already in memory.
const files = Array.from({ length: 1000 }, (_, i) => {
  const lines = 20 + ((i * 37) % 181)
  const text = Array.from(
    { length: lines },
    (_, l) => `  const value${l} = compute(${i}, ${l}) // file ${i} line ${l}`,
  ).join('\n')
  return { path: `src/module-${i}/file-${i}.ts`, text, lines }
})

describe('fitting 1,000 candidate file sections (goal ≤ 50 ms, no disk)', () => {
  bench(
    'render + count + fitSections (fresh counter each run)',
    () => {
      const counter = createTokenCounter()
      const sections: Section[] = files.map((f) => ({
        id: preloadSectionId(f.path),
        text: renderPreloadedFile(f.path, f.text, f.lines),
        priority: 30,
        cache: 'volatile',
      }))
      const fit = fitSections(sections, 50_000, counter)
      if (fit.tokens > 50_000) throw new Error('over budget')
    },
    { time: 1500 },
  )

  const counter = createTokenCounter()
  const prepared: Section[] = files.map((f, i) => ({
    id: preloadSectionId(f.path),
    text: renderPreloadedFile(f.path, f.text, f.lines),
    priority: i % 10,
    cache: 'volatile',
  }))
  bench(
    'fitSections only, mixed priorities',
    () => {
      fitSections(prepared, 50_000, counter)
    },
    { time: 1500 },
  )

  bench(
    'fitPassLadder with 1,000 pre-loaded sections',
    () => {
      fitPassLadder(
        {
          header: '## Instruction\nRename the prop everywhere.',
          elements: { full: '<div class="a">…</div>', lite: '- div.a' },
          backend: '### Backend\n- GET /api/tasks',
          preloaded: prepared,
          filesToModify: '- src/App.tsx',
        },
        50_000,
        counter,
      )
    },
    { time: 1500 },
  )
})
