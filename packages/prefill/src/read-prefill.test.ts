import { execFileSync } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { chmod, mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  type ContextkitError,
  getModelInfo,
  registerModel,
  ValidationError,
} from '@contextkit/core'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { DynamicPrefillLoader } from './dynamic-prefill.js'
import { PrefillReadError } from './errors.js'
import { createPrefillCache } from './file-cache.js'
import {
  hasPrefillEnabled,
  loadPrefill,
  modelFamily,
  prefillCandidates,
  readPrefillContent,
} from './read-prefill.js'

let ws: string
beforeEach(async () => {
  ws = await mkdtemp(join(tmpdir(), 'prefill-read-'))
})
afterEach(async () => {
  await chmod(ws, 0o700).catch(() => undefined)
  await rm(ws, { recursive: true, force: true })
})

function fresh() {
  const warnings: ContextkitError[] = []
  return {
    warnings,
    options: {
      cache: createPrefillCache(),
      loader: new DynamicPrefillLoader(),
      onWarning: (e: ContextkitError) => warnings.push(e),
    },
  }
}

describe('readPrefillContent', () => {
  it('is off, silently, when PREFILL.md does not exist (or the workspace does not)', async () => {
    const { warnings, options } = fresh()
    expect(await readPrefillContent(ws, options)).toBeUndefined()
    expect(await readPrefillContent(join(ws, 'no-such-dir'), options)).toBeUndefined()
    expect(await readPrefillContent('', options)).toBeUndefined() // never the cwd
    expect(await hasPrefillEnabled(ws, options)).toBe(false)
    expect(warnings).toEqual([])
  })

  it('returns the trimmed content; empty or blank means off', async () => {
    const { warnings, options } = fresh()
    await writeFile(join(ws, 'PREFILL.md'), '\n\n  I will think step by step.  \n\t\n')
    expect(await readPrefillContent(ws, options)).toBe('I will think step by step.')
    expect(await hasPrefillEnabled(ws, options)).toBe(true)
    await writeFile(join(ws, 'PREFILL.md'), ' \n\t \r\n')
    expect(await readPrefillContent(ws, options)).toBeUndefined()
    await writeFile(join(ws, 'PREFILL.md'), '')
    expect(await readPrefillContent(ws, options)).toBeUndefined()
    expect(warnings).toEqual([])
  })

  it('drops a UTF-8 BOM and keeps non-ASCII text intact', async () => {
    const { options } = fresh()
    await writeFile(join(ws, 'PREFILL.md'), '\uFEFF생각해 보겠습니다 🤔')
    expect(await readPrefillContent(ws, options)).toBe('생각해 보겠습니다 🤔')
  })

  it('picks the per-model file from the model id, falling back to PREFILL.md', async () => {
    const { options } = fresh()
    await writeFile(join(ws, 'PREFILL.md'), 'base')
    await writeFile(join(ws, 'PREFILL.opus.md'), 'opus')
    await writeFile(join(ws, 'PREFILL.sonnet.md'), 'sonnet')
    expect(await readPrefillContent(ws, { ...options, model: 'claude-opus-4-6' })).toBe('opus')
    expect(await readPrefillContent(ws, { ...options, model: 'claude-opus-4-20250514' })).toBe(
      'opus',
    )
    expect(await readPrefillContent(ws, { ...options, model: 'claude-sonnet-4-5' })).toBe('sonnet')
    expect(await readPrefillContent(ws, { ...options, model: 'claude-3-5-sonnet-latest' })).toBe(
      'sonnet',
    )
    expect(await readPrefillContent(ws, { ...options, model: 'claude-haiku-4-5' })).toBe('base')
    expect(await readPrefillContent(ws, { ...options, model: 'gpt-4o' })).toBe('base')
    expect(await readPrefillContent(ws, options)).toBe('base')
    const info = getModelInfo('us.anthropic.claude-opus-4-1-20250805-v1:0')
    expect(await readPrefillContent(ws, { ...options, model: info })).toBe('opus')
  })

  it('uses a blank per-model file as "off" rather than falling back', async () => {
    const { options } = fresh()
    await writeFile(join(ws, 'PREFILL.md'), 'base')
    await writeFile(join(ws, 'PREFILL.haiku.md'), '   ')
    expect(await readPrefillContent(ws, { ...options, model: 'claude-haiku-4-5' })).toBeUndefined()
  })

  it('honours file and perModel options', async () => {
    const { options } = fresh()
    await mkdir(join(ws, 'prompts'))
    await writeFile(join(ws, 'prompts', 'start.txt'), 'custom')
    await writeFile(join(ws, 'prompts', 'start.opus.txt'), 'custom opus')
    const file = 'prompts/start.txt'
    expect(await readPrefillContent(ws, { ...options, file })).toBe('custom')
    expect(await readPrefillContent(ws, { ...options, file, model: 'claude-opus-4-1' })).toBe(
      'custom opus',
    )
    expect(
      await readPrefillContent(ws, { ...options, file, model: 'claude-opus-4-1', perModel: false }),
    ).toBe('custom')
  })

  it('rejects invalid options with a ValidationError', async () => {
    const { options } = fresh()
    for (const bad of [{ file: '../outside.md' }, { file: '/etc/passwd' }, { timeoutMs: 0 }]) {
      await expect(readPrefillContent(ws, { ...options, ...bad })).rejects.toSatisfy((e) =>
        ValidationError.isInstance(e),
      )
    }
  })

  it('turns a directory named PREFILL.md into a warning and the feature off (EISDIR)', async () => {
    const { warnings, options } = fresh()
    await mkdir(join(ws, 'PREFILL.md'))
    expect(await readPrefillContent(ws, options)).toBeUndefined()
    expect(warnings).toHaveLength(1)
    expect(PrefillReadError.isInstance(warnings[0])).toBe(true)
    expect(warnings[0]?.code).toBe('prefill_read_failed')
    expect(warnings[0]?.recoverable).toBe(true)
    expect(warnings[0]?.details).toEqual({ path: join(ws, 'PREFILL.md'), reason: 'EISDIR' })
  })

  it('does not fall back to PREFILL.md when the per-model file is unreadable', async () => {
    const { warnings, options } = fresh()
    await writeFile(join(ws, 'PREFILL.md'), 'base')
    await mkdir(join(ws, 'PREFILL.opus.md'))
    expect(await readPrefillContent(ws, { ...options, model: 'claude-opus-4-1' })).toBeUndefined()
    expect(warnings.map((w) => w.details.reason)).toEqual(['EISDIR'])
  })

  it('rejects files over maxBytes and invalid UTF-8 with warnings', async () => {
    const { warnings, options } = fresh()
    await writeFile(join(ws, 'PREFILL.md'), 'x'.repeat(101))
    expect(await readPrefillContent(ws, { ...options, maxBytes: 100 })).toBeUndefined()
    await writeFile(join(ws, 'PREFILL.md'), Buffer.from([0x48, 0x69, 0xff, 0xfe, 0x21]))
    expect(await readPrefillContent(ws, options)).toBeUndefined()
    expect(warnings.map((w) => w.details.reason)).toEqual(['too-large', 'not-utf8'])
  })

  it('does not hang on a FIFO named PREFILL.md', async () => {
    const { warnings, options } = fresh()
    execFileSync('mkfifo', [join(ws, 'PREFILL.md')])
    expect(await readPrefillContent(ws, options)).toBeUndefined()
    expect(warnings.map((w) => w.details.reason)).toEqual(['not-a-file'])
  })

  it('reports an unreadable workspace (ENOTDIR) as a warning, not a crash', async () => {
    const { warnings, options } = fresh()
    await writeFile(join(ws, 'file'), 'not a directory')
    expect(await readPrefillContent(join(ws, 'file'), options)).toBeUndefined()
    expect(warnings.map((w) => w.details.reason)).toEqual(['ENOTDIR'])
  })

  it.skipIf(process.getuid?.() === 0)('reports EACCES as a warning (non-root only)', async () => {
    const { warnings, options } = fresh()
    await writeFile(join(ws, 'PREFILL.md'), 'secret')
    await chmod(join(ws, 'PREFILL.md'), 0o000)
    expect(await readPrefillContent(ws, options)).toBeUndefined()
    expect(warnings.map((w) => w.details.reason)).toEqual(['EACCES'])
  })

  it('emits a process warning when no onWarning is given', async () => {
    await mkdir(join(ws, 'PREFILL.md'))
    const seen: Error[] = []
    const listener = (w: Error) => seen.push(w)
    process.on('warning', listener)
    try {
      const text = await readPrefillContent(ws, {
        cache: createPrefillCache(),
        loader: new DynamicPrefillLoader(),
      })
      expect(text).toBeUndefined()
      await new Promise((r) => setImmediate(r))
    } finally {
      process.off('warning', listener)
    }
    expect(seen.map((w) => (w as Error & { code?: string }).code)).toContain('prefill_read_failed')
  })
})

describe('file cache', () => {
  it('does not re-read an unchanged file and re-reads when mtime or size changes', async () => {
    const cache = createPrefillCache({ racyMs: 0 })
    const file = join(ws, 'PREFILL.md')
    await writeFile(file, 'one')
    const opts = { cache, loader: new DynamicPrefillLoader() }
    expect(await readPrefillContent(ws, opts)).toBe('one')
    expect(await readPrefillContent(ws, opts)).toBe('one')
    expect(await readPrefillContent(ws, opts)).toBe('one')
    expect({ hits: cache.hits, misses: cache.misses, size: cache.size }).toEqual({
      hits: 2,
      misses: 1,
      size: 1,
    })
    await writeFile(file, 'three') // size changes
    expect(await readPrefillContent(ws, opts)).toBe('three')
    await writeFile(file, 'THREE') // same size: only the mtime differs
    await utimes(file, new Date(), new Date(Date.now() + 10_000))
    expect(await readPrefillContent(ws, opts)).toBe('THREE')
    expect(cache.misses).toBe(3)
    await rm(file)
    expect(await readPrefillContent(ws, opts)).toBeUndefined()
    expect(cache.size).toBe(0)
  })

  it('a file replaced by one of the same size and restored modification time is read again', async () => {
    const cache = createPrefillCache({ racyMs: 0 })
    const file = join(ws, 'PREFILL.md')
    await writeFile(file, 'alpha')
    const stamp = new Date('2024-01-01T00:00:00Z')
    await utimes(file, stamp, stamp)
    expect(await readPrefillContent(ws, { cache })).toBe('alpha')
    expect(await readPrefillContent(ws, { cache })).toBe('alpha')
    expect(cache.hits).toBe(1)
    // same size, same modification time (as `cp -p` leaves it): the change time still moved
    await writeFile(file, 'gamma')
    await utimes(file, stamp, stamp)
    expect(await readPrefillContent(ws, { cache })).toBe('gamma')
    expect(cache.misses).toBe(2)
  })

  it('cache.read takes any number as maxBytes on a hit (a fraction, Infinity), never throws', async () => {
    const cache = createPrefillCache({ racyMs: 0 })
    const file = join(ws, 'PREFILL.md')
    await writeFile(file, 'cached')
    expect(await cache.read(file, 100)).toMatchObject({ kind: 'text', text: 'cached' })
    expect(await cache.read(file, 100.5)).toMatchObject({ kind: 'text', cached: true })
    expect(await cache.read(file, Number.POSITIVE_INFINITY)).toMatchObject({ cached: true })
    // too small for the cached file: read again and refused as too large
    expect(await cache.read(file, 3)).toMatchObject({ kind: 'failed' })
  })

  it('a file read within racyMs of its last change is read again next time', async () => {
    const cache = createPrefillCache()
    await writeFile(join(ws, 'PREFILL.md'), 'fresh')
    expect(await readPrefillContent(ws, { cache })).toBe('fresh')
    expect(await readPrefillContent(ws, { cache })).toBe('fresh')
    expect({ hits: cache.hits, misses: cache.misses, size: cache.size }).toEqual({
      hits: 0,
      misses: 2,
      size: 0,
    })
    expect(() => createPrefillCache({ racyMs: -1 })).toThrow(ValidationError)
  })

  it('evicts the oldest file beyond maxEntries', async () => {
    const cache = createPrefillCache({ maxEntries: 2, racyMs: 0 })
    for (const name of ['a', 'b', 'c']) {
      await mkdir(join(ws, name))
      await writeFile(join(ws, name, 'PREFILL.md'), name)
      expect(await readPrefillContent(join(ws, name), { cache })).toBe(name)
    }
    expect(cache.size).toBe(2)
    cache.clear()
    expect(cache.size).toBe(0)
  })
})

describe('candidates', () => {
  it('lists modules, the per-model file and the base file in order', () => {
    expect(prefillCandidates('PREFILL.md', 'opus').map((c) => c.file)).toEqual([
      'PREFILL.mjs',
      'PREFILL.js',
      'PREFILL.opus.md',
      'PREFILL.md',
    ])
    expect(prefillCandidates('PREFILL.md', undefined, { dynamic: false })).toEqual([
      { file: 'PREFILL.md', dynamic: false },
    ])
    expect(prefillCandidates('gen/PREFILL.mjs', 'opus')).toEqual([
      { file: 'gen/PREFILL.mjs', dynamic: true },
    ])
    expect(prefillCandidates('PREFILL', 'haiku', { dynamic: false }).map((c) => c.file)).toEqual([
      'PREFILL.haiku',
      'PREFILL',
    ])
  })

  it('derives a safe family name from ids and ModelInfo', () => {
    expect(modelFamily('claude-opus-4-6')).toBe('opus')
    expect(modelFamily('claude-3-haiku-20240307')).toBe('haiku')
    expect(modelFamily('mystery-model')).toBeUndefined()
    expect(modelFamily(undefined)).toBeUndefined()
    expect(modelFamily({ ...getModelInfo('x'), family: '../etc' })).toBeUndefined()
  })

  it('loadPrefill reports the source and kind', async () => {
    await writeFile(join(ws, 'PREFILL.md'), 'hello')
    const load = await loadPrefill(ws, { cache: createPrefillCache() })
    expect(load).toEqual({ text: 'hello', source: join(ws, 'PREFILL.md'), kind: 'file' })
    expect(await loadPrefill(join(ws, 'nope'))).toEqual({ text: undefined, kind: 'none' })
  })
})

it('modelFamily sees models registered after it was first asked (no module-level cache)', () => {
  const id = `acme-${randomUUID().slice(0, 8)}-7b`
  expect(modelFamily(id)).toBeUndefined()
  registerModel(id, { family: 'acme' })
  expect(modelFamily(id)).toBe('acme')
})

it('loadPrefill without a cache of its own reads the file afresh on each call', async () => {
  await writeFile(join(ws, 'PREFILL.md'), 'First.')
  expect((await loadPrefill(ws)).text).toBe('First.')
  await writeFile(join(ws, 'PREFILL.md'), 'Second.')
  expect((await loadPrefill(ws)).text).toBe('Second.')
})
