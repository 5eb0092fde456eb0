// Seed 002's cases for `_build_preloaded_files`, asked again of `buildPreloadedFiles` with its
// defaults (default counter, 5,000-token budget, 200 lines): the same inputs keep the same files.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fitSections, renderOmissionNotice, renderSections } from '@contextkit/core'
import fc from 'fast-check'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { PRELOADED_FILES_HEADING } from './names.js'
import { buildPreloadedFiles } from './preloaded-files.js'
import { collectReferences } from './references.js'

let root: string

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'preload-seed-'))
})
afterEach(async () => {
  await rm(root, { recursive: true, force: true })
})

async function put(rel: string, content: string): Promise<void> {
  await mkdir(path.dirname(path.join(root, rel)), { recursive: true })
  await writeFile(path.join(root, rel), content)
}

/** What the model reads: the sections rendered as the prompt renders them. */
async function preloaded(
  contexts: unknown,
  backendMap: unknown,
  options: { maxLineLength?: number } = {},
) {
  const files = await buildPreloadedFiles(collectReferences(contexts, backendMap), {
    root,
    ...options,
  })
  return { files, text: renderSections(files.sections) }
}

describe("seed 002's preloaded-file cases", () => {
  test('nothing referenced: nothing rendered', async () => {
    expect((await preloaded(null, null)).text).toBe('')
  })

  test("a selected element's source file is shown under the Pre-loaded Files heading", async () => {
    await put('src/App.jsx', 'function App() { return <div /> }\n')
    const { text } = await preloaded(
      [{ sourceFile: 'src/App.jsx', tagName: 'div', selector: '.app' }],
      null,
    )
    expect(text.startsWith(`${PRELOADED_FILES_HEADING}\n\n`)).toBe(true)
    expect(text).toContain('### Pre-loaded Files')
    expect(text).toContain('src/App.jsx')
    expect(text).toContain('function App()')
  })

  test("a backend model's file is preloaded too", async () => {
    await put('api/models.py', 'class Task:\n    name: str\n')
    const { text } = await preloaded(null, {
      endpoints: [],
      models: [{ name: 'Task', file: 'api/models.py', line: 1, fields: [] }],
    })
    expect(text).toContain('api/models.py')
    expect(text).toContain('class Task:')
  })

  test('a file over 200 lines is left out', async () => {
    await put('src/Big.jsx', Array.from({ length: 250 }, (_, i) => `line ${i}`).join('\n'))
    const { text, files } = await preloaded(
      [{ sourceFile: 'src/Big.jsx', tagName: 'div', selector: '.big' }],
      null,
    )
    expect(text).toBe('')
    expect(files.omissions.map((o) => o.id)).toEqual(['preload:src/Big.jsx'])
  })

  test('the token budget: a long one-line file fills it and the next file stays out', async () => {
    await put('a.jsx', 'x'.repeat(19_000)) // close to the 5,000-token cap on its own
    await put('b.jsx', 'y'.repeat(4000)) // would take the total over it
    const { text, files } = await preloaded(
      [
        { sourceFile: 'a.jsx', tagName: 'div', selector: '.a' },
        { sourceFile: 'b.jsx', tagName: 'div', selector: '.b' },
      ],
      null,
    )
    expect(text).toContain('a.jsx')
    expect(text).not.toContain('b.jsx')
    // a.jsx whole: its one long line is not cut by default
    expect(text).toContain('x'.repeat(19_000))
    expect(files.omissions).toEqual([
      { id: 'preload:b.jsx', reason: 'dropped', tokensSaved: expect.any(Number) },
    ])
    expect(files.tokens).toBeLessThanOrEqual(5000)
  })

  test('a file referenced twice is shown once', async () => {
    await put('src/App.jsx', 'export default App\n')
    const { text } = await preloaded(
      [
        { sourceFile: 'src/App.jsx', tagName: 'div', selector: '.a' },
        { sourceFile: 'src/App.jsx', tagName: 'span', selector: '.b' },
      ],
      null,
    )
    expect(text.split('#### `src/App.jsx`')).toHaveLength(2)
    expect(text.split(PRELOADED_FILES_HEADING)).toHaveLength(2)
  })
})

describe('cut lines are omissions', () => {
  test('with maxLineLength, a cut file is a shortened omission the notice names', async () => {
    await put('min.js', `short\n${'a'.repeat(500)}\n`)
    await put('ok.js', 'fine\n')
    const { files, text } = await preloaded(
      [{ sourceFile: 'min.js' }, { sourceFile: 'ok.js' }],
      null,
      {
        maxLineLength: 100,
      },
    )
    expect(text).toContain('[… line cut: 400 more characters]')
    expect(files.sections.map((s) => s.id)).toEqual(['preload:min.js', 'preload:ok.js'])
    expect(files.omissions).toEqual([
      { id: 'preload:min.js', reason: 'shortened', tokensSaved: 100 },
    ])
    expect(renderOmissionNotice(files.omissions)).toContain(
      'Shortened (1, ~100 tokens): preload:min.js',
    )
  })
})

describe('the heading under budget fitting', () => {
  test('property: whatever fitting keeps, the heading is there exactly once, above the first file', async () => {
    const sizes = [40, 900, 120, 2000, 10, 600]
    const refs = sizes.map((_, i) => `f${i}.ts`)
    for (const [i, n] of sizes.entries()) await put(refs[i]!, `${'word '.repeat(n)}\n`)
    const files = await buildPreloadedFiles(refs, { root, budgetTokens: 1_000_000 })
    expect(files.sections).toHaveLength(sizes.length)
    fc.assert(
      fc.property(fc.integer({ min: 0, max: files.tokens + 10 }), (budget) => {
        const fit = fitSections(files.sections, budget, {
          id: 'chars',
          kind: 'estimate',
          count: (t) => Math.ceil(t.length / 4),
        })
        const text = renderSections(fit.kept)
        const headings = text.split(PRELOADED_FILES_HEADING).length - 1
        expect(headings).toBe(fit.kept.length > 0 ? 1 : 0)
        if (fit.kept.length > 0) expect(text.startsWith(PRELOADED_FILES_HEADING)).toBe(true)
      }),
      { numRuns: 200 },
    )
  })
})
