// The folders of src/ stand in floors, and every import runs down: a provider sees only the
// provider door and core, the door knows no loop, and no folder imports one above it. This test
// reads the imports of every source file (tests and fixtures aside) and fails on any other.
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, test } from 'vitest'

const SRC = dirname(fileURLToPath(import.meta.url))

/** Each folder's floor: a file may import its own folder and folders on lower floors only. */
const FLOORS: Readonly<Record<string, number>> = {
  provider: 0,
  anthropic: 1,
  openai: 1,
  completions: 1,
  'ai-sdk': 1,
  events: 1,
  budget: 2,
  schema: 2,
  stop: 2,
  otel: 2,
  session: 3,
  tools: 4,
  call: 4,
  mcp: 5,
  compaction: 5,
  output: 6,
  plan: 6,
  step: 7,
  run: 8,
  testing: 9,
  '.': 10,
}

/** The provider subpaths: they import the door (and packages), nothing else of the loop. */
const PROVIDERS = ['anthropic', 'openai', 'completions', 'ai-sdk']

/** Packages a provider may import beside the door: core (any entry), zod, its SDK or SSE parser. */
const PROVIDER_PACKAGES = ['@contextkit/core', 'zod', '@anthropic-ai/sdk', 'eventsource-parser']

/** Whether a provider may import `to`: one of {@link PROVIDER_PACKAGES} or an entry of core. */
function providerMayImport(to: string): boolean {
  return PROVIDER_PACKAGES.includes(to) || to.startsWith('@contextkit/core/')
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name)
    if (e.isDirectory()) return sourceFiles(path)
    if (!e.name.endsWith('.ts') || /\.(test|fixture)\.ts$/.test(e.name)) return []
    if (e.name === 'test-support.ts') return []
    return [path]
  })
}

/** Every module a file names: static imports, re-exports and `import()` with a literal. */
function specifiers(text: string): string[] {
  const found = text.matchAll(/(?:from\s+|import\s*\(\s*|^import\s+)'([^']+)'/gm)
  return [...found].map((m) => m[1] as string)
}

function folderOf(file: string): string {
  const rel = relative(SRC, file).split(sep)
  return rel.length === 1 ? '.' : (rel[0] as string)
}

interface Import {
  from: string
  folder: string
  to: string
}

function imports(): Import[] {
  return sourceFiles(SRC).flatMap((file) =>
    specifiers(readFileSync(file, 'utf8')).map((spec) => {
      const to = spec.startsWith('.') ? folderOf(join(dirname(file), spec)) : spec
      return { from: relative(SRC, file), folder: folderOf(file), to }
    }),
  )
}

describe('the folders of the loop', () => {
  const all = imports()
  const local = all.filter((i) => i.to in FLOORS || i.to === '.')

  test('every folder has a floor', () => {
    const folders = new Set(sourceFiles(SRC).map(folderOf))
    expect([...folders].filter((f) => !(f in FLOORS))).toEqual([])
  })

  test('no import runs up or sideways between folders', () => {
    const up = local.filter(
      (i) => i.to !== i.folder && (FLOORS[i.to] as number) >= (FLOORS[i.folder] as number),
    )
    expect(up.map((i) => `${i.from} -> ${i.to}/`)).toEqual([])
  })

  test('a provider imports only the provider door, core and its own libraries', () => {
    const past = all.filter(
      (i) =>
        PROVIDERS.includes(i.folder) &&
        i.to !== i.folder &&
        i.to !== 'provider' &&
        !providerMayImport(i.to),
    )
    expect(past.map((i) => `${i.from} -> ${i.to}`)).toEqual([])
  })

  test('the door imports nothing of the loop', () => {
    const out = local.filter((i) => i.folder === 'provider' && i.to !== 'provider')
    expect(out.map((i) => `${i.from} -> ${i.to}/`)).toEqual([])
  })

  test('the walk sees the imports it checks (a provider does import the door)', () => {
    expect(all.some((i) => i.folder === 'anthropic' && i.to === 'provider')).toBe(true)
    expect(all.some((i) => i.folder === 'run' && i.to === 'call')).toBe(true)
  })
})
