import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import fc from 'fast-check'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import {
  DEFAULT_BOOTSTRAP_FILES,
  loadBootstrapFiles,
  PROJECT_CONTEXT_HEADING,
  truncateHeadTail,
} from './bootstrap.js'

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/
const wellFormed = (s: string) => !LONE_SURROGATE.test(s)

let ws: string
beforeEach(async () => {
  ws = await mkdtemp(path.join(tmpdir(), 'preload-boot-'))
})
afterEach(async () => {
  await rm(ws, { recursive: true, force: true })
})

describe('truncateHeadTail', () => {
  test('keeps about 70% head and 20% tail with a marker saying what was cut', () => {
    const text = Array.from({ length: 1000 }, (_, i) => `${i}`.padStart(4, '0')).join('')
    const r = truncateHeadTail(text, 1000, { name: 'AGENTS.md' })
    expect(r.cut).toBe(true)
    expect(r.text.startsWith(text.slice(0, 700))).toBe(true)
    expect(r.text.endsWith(text.slice(-200))).toBe(true)
    expect(r.keptChars).toBe(900)
    expect(r.text).toContain('[… 3100 characters of AGENTS.md cut here')
    expect(r.text).toContain('of 4000')
  })

  test('leaves text that fits alone', () => {
    expect(truncateHeadTail('short', 100)).toEqual({ text: 'short', keptChars: 5, cut: false })
  })

  test('property: head is a prefix, tail a suffix, size stays bounded', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', minLength: 0, maxLength: 3000 }),
        fc.integer({ min: 100, max: 2000 }),
        (text, max) => {
          const r = truncateHeadTail(text, max)
          if (!r.cut) {
            expect(r.text).toBe(text)
            return
          }
          expect(r.keptChars).toBeLessThanOrEqual(Math.floor(max * 0.9))
          const marker = r.text.indexOf('\n\n[… ')
          expect(text.startsWith(r.text.slice(0, marker))).toBe(true)
          const tail = r.text.slice(r.text.indexOf('…]\n\n') + 4)
          expect(text.endsWith(tail)).toBe(true)
          expect(wellFormed(r.text)).toBe(wellFormed(text))
        },
      ),
      { numRuns: 300 },
    )
  })
})

describe('loadBootstrapFiles', () => {
  test('loads the present files in order as Project Context sections; reports missing ones', async () => {
    await writeFile(path.join(ws, 'SOUL.md'), 'Be kind.\n')
    await writeFile(path.join(ws, 'AGENTS.md'), 'Run tests before committing.\n')
    const r = await loadBootstrapFiles(ws)
    expect(r.loaded).toEqual(['AGENTS.md', 'SOUL.md'])
    expect(r.missing).toEqual(DEFAULT_BOOTSTRAP_FILES.filter((n) => !r.loaded.includes(n)))
    expect(r.sections.map((s) => s.id)).toEqual(['bootstrap:AGENTS.md', 'bootstrap:SOUL.md'])
    expect(r.sections[0]!.text).toBe(
      `${PROJECT_CONTEXT_HEADING}\n\n## AGENTS.md\n\n\`\`\`markdown\nRun tests before committing.\n\`\`\``,
    )
    expect(r.sections[1]!.text).toBe('## SOUL.md\n\n```markdown\nBe kind.\n```')
    expect(r.sections.every((s) => s.cache === 'stable' && s.priority === 80)).toBe(true)
  })

  test('caps each file with head/tail truncation and reports it', async () => {
    const big = `HEAD ${'m'.repeat(99)}\n`.repeat(500) + 'TAIL'
    await writeFile(path.join(ws, 'MEMORY.md'), big)
    const r = await loadBootstrapFiles(ws, ['MEMORY.md'], { maxChars: 1000 })
    expect(r.truncated).toEqual([{ name: 'MEMORY.md', chars: big.length, keptChars: 900 }])
    const text = r.sections[0]!.text
    expect(text).toContain('HEAD m')
    expect(text.endsWith('m\nTAIL\n```')).toBe(true)
    expect(text).toContain('characters of MEMORY.md cut here')
    expect(text.length).toBeLessThan(1200)
  })

  test('custom names, empty files, refused files', async () => {
    await writeFile(path.join(ws, 'USER.md'), '  \n')
    await writeFile(path.join(ws, 'TOOLS.md'), Buffer.from([0xff, 0xfe, 0x41]))
    await writeFile(path.join(ws, '.env'), 'X=1')
    const r = await loadBootstrapFiles(ws, ['USER.md', 'TOOLS.md', '.env', '../x.md', 'NOPE.md'])
    expect(r.sections).toEqual([])
    expect(r.missing).toEqual(['NOPE.md'])
    expect(r.skipped.map((s) => `${s.path}:${s.reason}`)).toEqual([
      'USER.md:empty',
      'TOOLS.md:preload_invalid_utf8',
      '.env:preload_path_denied',
      '../x.md:preload_path_outside_root',
    ])
  })

  test('a missing workspace reports preload_root_unavailable for each file, not a throw', async () => {
    const r = await loadBootstrapFiles(path.join(ws, 'nope'), ['AGENTS.md'])
    expect(r.skipped.map((s) => s.reason)).toEqual(['preload_root_unavailable'])
  })

  test('bad options throw a ValidationError', async () => {
    await expect(
      loadBootstrapFiles(ws, [], { headRatio: 0.9, tailRatio: 0.3 }),
    ).rejects.toMatchObject({ code: 'validation_error' })
  })

  test('names that are not a list of strings throw a ValidationError, not a TypeError', async () => {
    for (const names of [null, 'AGENTS.md', 42, [null], [{}]]) {
      await expect(loadBootstrapFiles(ws, names as unknown as string[])).rejects.toMatchObject({
        code: 'validation_error',
      })
    }
  })
})

/** The `## ` headings a Markdown reader sees outside fenced code (CommonMark backtick fences). */
function visibleHeadings(markdown: string): string[] {
  const out: string[] = []
  let open = 0
  for (const line of markdown.split('\n')) {
    const fence = /^ {0,3}(`{3,})(.*)$/.exec(line)
    if (fence) {
      const ticks = fence[1]!.length
      if (open === 0) {
        if (!fence[2]!.includes('`')) open = ticks
        continue
      }
      if (ticks >= open && fence[2]!.trim() === '') {
        open = 0
        continue
      }
    }
    if (open === 0 && /^#{1,6} /.test(line)) out.push(line)
  }
  return out
}

test("property: no line of a bootstrap file can pose as another file's heading", async () => {
  const ws = await mkdtemp(path.join(tmpdir(), 'bootstrap-forge-'))
  try {
    const line = fc.oneof(
      fc.constantFrom(
        '## SOUL.md',
        '# Project Context',
        '```',
        '````',
        '```markdown',
        '`````',
        '~~~',
        '## AGENTS.md',
      ),
      fc.string({ maxLength: 20 }).filter((s) => !s.includes('\n') && !s.includes('\r')),
    )
    const file = fc
      .array(line, { minLength: 1, maxLength: 12 })
      .map((ls) => `${ls.join('\n')}\nend`)
    await fc.assert(
      fc.asyncProperty(file, file, async (agents, soul) => {
        await writeFile(path.join(ws, 'AGENTS.md'), agents)
        await writeFile(path.join(ws, 'SOUL.md'), soul)
        const r = await loadBootstrapFiles(ws, ['AGENTS.md', 'SOUL.md'])
        const all = r.sections.map((s) => s.text).join('\n\n')
        expect(visibleHeadings(all)).toEqual([
          PROJECT_CONTEXT_HEADING,
          '## AGENTS.md',
          '## SOUL.md',
        ])
      }),
      { numRuns: 300 },
    )
  } finally {
    await rm(ws, { recursive: true, force: true })
  }
})
