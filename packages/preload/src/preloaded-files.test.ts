import { execFileSync } from 'node:child_process'
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { createTokenCounter, fitSections, renderOmissionNotice } from '@contextkit/core'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { PRELOADED_FILES_HEADING } from './names.js'
import { buildPreloadedFiles, renderPreloadedFile } from './preloaded-files.js'
import { collectReferences } from './references.js'

let root: string
const counter = createTokenCounter({ safetyFactor: 1 })

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'preload-files-'))
})
afterEach(async () => {
  await rm(root, { recursive: true, force: true })
})

async function put(rel: string, content: string | Buffer): Promise<void> {
  await mkdir(path.dirname(path.join(root, rel)), { recursive: true })
  await writeFile(path.join(root, rel), content)
}

describe('buildPreloadedFiles', () => {
  test('no references, no sections', async () => {
    const r = await buildPreloadedFiles([], { root })
    expect(r).toEqual({ sections: [], omissions: [], skipped: [], tokens: 0 })
  })

  test('a selected source file becomes a fenced section with a language tag', async () => {
    await put('src/App.jsx', 'function App() { return <div /> }\n')
    const refs = collectReferences([{ sourceFile: 'src/App.jsx', tagName: 'div' }], null)
    const r = await buildPreloadedFiles(refs, { root, counter })
    expect(r.sections).toHaveLength(1)
    expect(r.sections[0]).toMatchObject({ id: 'preload:src/App.jsx', cache: 'volatile' })
    expect(r.sections[0]!.text).toBe(
      '### Pre-loaded Files\n\n#### `src/App.jsx` (1 line)\n```jsx\nfunction App() { return <div /> }\n```',
    )
    expect(r.tokens).toBe(counter.count(r.sections[0]!.text))
  })

  test('backend map files are preloaded too', async () => {
    await put('api/models.py', 'class Task:\n    name: str\n')
    const refs = collectReferences(null, { models: [{ name: 'Task', file: 'api/models.py' }] })
    const r = await buildPreloadedFiles(refs, { root })
    expect(r.sections[0]!.text).toContain('```python\nclass Task:')
    expect(r.sections[0]!.text).toContain('(2 lines)')
  })

  test('a file with backtick fences inside gets a longer fence', async () => {
    await put('README.md', '# Title\n\n```ts\nconst a = 1\n```\n')
    const r = await buildPreloadedFiles(['README.md'], { root })
    const text = r.sections[0]!.text
    expect(text).toContain('\n````markdown\n# Title')
    expect(text.endsWith('```\n````')).toBe(true)
  })

  test('files over the line limit become omissions, not silence', async () => {
    await put('src/Big.jsx', Array.from({ length: 250 }, (_, i) => `line ${i}`).join('\n'))
    await put('src/Small.jsx', 'small\n')
    const r = await buildPreloadedFiles(['src/Big.jsx', 'src/Small.jsx'], { root })
    expect(r.sections.map((s) => s.id)).toEqual(['preload:src/Small.jsx'])
    expect(r.omissions).toEqual([
      { id: 'preload:src/Big.jsx', reason: 'dropped', tokensSaved: expect.any(Number) },
    ])
    expect(r.omissions[0]!.tokensSaved).toBeGreaterThan(250)
    expect(r.skipped[0]).toMatchObject({ path: 'src/Big.jsx', reason: 'preload_file_too_large' })
    expect(renderOmissionNotice(r.omissions)).toContain('preload:src/Big.jsx')
  })

  test('files over the byte cap (one long line) become omissions', async () => {
    await put('bundle.min.js', 'x'.repeat(10_000))
    const r = await buildPreloadedFiles(['bundle.min.js'], { root, maxBytes: 4096 })
    expect(r.sections).toEqual([])
    expect(r.omissions).toEqual([
      { id: 'preload:bundle.min.js', reason: 'dropped', tokensSaved: 2500 },
    ])
  })

  test('stops at the token budget; a later smaller file may still fit', async () => {
    await put('a.jsx', 'x'.repeat(23_000)) // ~4600 tokens
    await put('b.jsx', 'y'.repeat(4000)) // ~800 tokens: over
    await put('c.jsx', 'z')
    const r = await buildPreloadedFiles(['a.jsx', 'b.jsx', 'c.jsx'], {
      root,
      budgetTokens: 5000,
      counter,
      maxLineLength: 100_000,
    })
    expect(r.sections.map((s) => s.id)).toEqual(['preload:a.jsx', 'preload:c.jsx'])
    expect(r.tokens).toBeLessThanOrEqual(5000)
    expect(r.skipped).toEqual([{ path: 'b.jsx', reason: 'over_budget' }])
    expect(r.omissions.map((o) => o.id)).toEqual(['preload:b.jsx'])
  })

  test('duplicates are read once', async () => {
    await put('src/App.jsx', 'export default App\n')
    const r = await buildPreloadedFiles(['src/App.jsx', './src/App.jsx', 'src/App.jsx'], { root })
    expect(r.sections).toHaveLength(1)
  })

  test('refused and missing files are listed in skipped with their codes', async () => {
    const outside = await mkdtemp(path.join(tmpdir(), 'preload-out-'))
    try {
      await writeFile(path.join(outside, 's.txt'), 'SECRET')
      await symlink(path.join(outside, 's.txt'), path.join(root, 'link.txt'))
      await put('.env', 'TOKEN=1')
      await put('bin.dat', Buffer.from([1, 0, 2]))
      const r = await buildPreloadedFiles(
        ['link.txt', '.env', 'bin.dat', 'missing.ts', '/etc/passwd', '..\\x'],
        { root },
      )
      expect(r.sections).toEqual([])
      expect(r.omissions).toEqual([])
      expect(r.skipped.map((s) => `${s.path}:${s.reason}`)).toEqual([
        'link.txt:preload_path_outside_root',
        '.env:preload_path_denied',
        'bin.dat:preload_binary_file',
        'missing.ts:preload_file_not_found',
        '/etc/passwd:preload_path_outside_root',
        '..\\x:preload_invalid_path',
      ])
      expect(JSON.stringify(r)).not.toContain('SECRET')
    } finally {
      await rm(outside, { recursive: true, force: true })
    }
  })

  test('sections plug into core fitSections; later files drop first', async () => {
    await put('one.ts', 'a '.repeat(400))
    await put('two.ts', 'b '.repeat(400))
    const r = await buildPreloadedFiles(['one.ts', 'two.ts'], { root, counter })
    const fit = fitSections(r.sections, r.tokens - 10, counter)
    expect(fit.kept.map((s) => s.id)).toEqual(['preload:one.ts'])
    expect(fit.omissions.map((o) => o.id)).toEqual(['preload:two.ts'])
  })

  test('malformed options throw a ValidationError', async () => {
    await expect(buildPreloadedFiles([], { root: '' })).rejects.toMatchObject({
      code: 'validation_error',
    })
    await expect(buildPreloadedFiles([], { root, budgetTokens: -1 })).rejects.toMatchObject({
      code: 'validation_error',
    })
  })

  test('refs that are not a list of paths throw a ValidationError, not a TypeError', async () => {
    for (const refs of [null, undefined, 'a.ts', [null], [42], [{ path: 3 }], [{}]]) {
      await expect(
        buildPreloadedFiles(refs as unknown as string[], { root }),
      ).rejects.toMatchObject({ code: 'validation_error' })
    }
  })
})

test('file names that could break or reorder the heading line are shown escaped', async () => {
  const root = await mkdtemp(path.join(tmpdir(), 'preload-names-'))
  try {
    const names = [
      'a\u2028b.txt',
      'x\u202Egnp.txt',
      'y\u2066z.txt',
      'n\u0085.txt',
      'zw\u200B.txt',
      'bom\uFEFF.txt',
    ]
    for (const n of names) await writeFile(path.join(root, n), 'content\n')
    const files = await buildPreloadedFiles(names, {
      root,
      budgetTokens: 5000,
      counter: createTokenCounter(),
    })
    expect(files.sections).toHaveLength(names.length)
    const headings = files.sections.map(
      (s) => s.text.split('\n').find((l) => l.startsWith('#### '))!,
    )
    expect(headings).toEqual([
      '#### `a\\u2028b.txt` (1 line)',
      '#### `x\\u202egnp.txt` (1 line)',
      '#### `y\\u2066z.txt` (1 line)',
      '#### `n\\u0085.txt` (1 line)',
      '#### `zw\\u200b.txt` (1 line)',
      '#### `bom\\ufeff.txt` (1 line)',
    ])
    for (const h of headings) expect(h).not.toMatch(/[\u0085\u2028\u202e\u2066\u200b\ufeff]/)
  } finally {
    await rm(root, { recursive: true, force: true })
  }
})

describe('buildPreloadedFiles opens no file that cannot fit', () => {
  /** 300 FIFOs: a file that is looked at is refused as not a regular file; one never opened is over budget. */
  async function fifos(count: number): Promise<string[]> {
    const names = Array.from({ length: count }, (_, i) => `f${i}.txt`)
    // one mkfifo for all of them: 300 process spawns would dominate the test on a loaded machine
    execFileSync(
      'mkfifo',
      names.map((name) => path.join(root, name)),
    )
    return names
  }

  test.skipIf(process.platform === 'win32')(
    'budgetTokens 0 with 300 references: none opened',
    async () => {
      const names = await fifos(300)
      const r = await buildPreloadedFiles(names, { root, budgetTokens: 0 })
      expect(r.sections).toEqual([])
      expect(r.skipped).toHaveLength(300)
      // every one skipped for the budget, none for what is at the path: nothing was opened
      expect(r.skipped.every((s) => s.reason === 'over_budget')).toBe(true)
      expect(r.omissions).toHaveLength(300)
      expect(r.omissions.every((o) => o.tokensSaved > 0)).toBe(true)
    },
  )

  test.skipIf(process.platform === 'win32')(
    'once the budget is spent, later references are not opened',
    async () => {
      await put('a.txt', 'x'.repeat(400))
      const names = await fifos(50)
      // a.txt leaves less than the smallest section of any other file
      const a = renderPreloadedFile('a.txt', 'x'.repeat(400), 1)
      const budgetTokens = counter.count(`${PRELOADED_FILES_HEADING}\n\n${a}`) + 2
      const r = await buildPreloadedFiles(['a.txt', ...names], { root, budgetTokens, counter })
      expect(r.sections.map((s) => s.id)).toHaveLength(1)
      // the few read before a.txt was counted are refused as FIFOs; the rest were never opened
      const opened = r.skipped.filter((s) => s.reason !== 'over_budget').length
      expect(opened).toBeLessThanOrEqual(8)
      expect(r.skipped.filter((s) => s.reason === 'over_budget').length).toBeGreaterThanOrEqual(42)
    },
  )
})
