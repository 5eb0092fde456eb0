import { mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { getModelInfo, textMessage } from '@contextkit/core'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { DynamicPrefillLoader } from './dynamic-prefill.js'
import { PrefillGenerateError, PrefillReadError, PrefillTimeoutError } from './errors.js'
import { createPrefillCache } from './file-cache.js'
import { loadPrefill, readPrefillContent } from './read-prefill.js'

let ws: string
beforeEach(async () => {
  ws = await mkdtemp(join(tmpdir(), 'prefill-dyn-'))
})
afterEach(async () => {
  await rm(ws, { recursive: true, force: true })
})

/** Fresh cache and loader per call, so tests do not share state. */
function isolated() {
  return { cache: createPrefillCache(), loader: new DynamicPrefillLoader() }
}

describe('dynamic prefill modules', () => {
  it('runs generate({ model, history, context }) from PREFILL.mjs', async () => {
    await writeFile(
      join(ws, 'PREFILL.mjs'),
      `export async function generate({ model, history, context }) {
        return '  ' + model.family + ' ' + history.length + ' ' + context.runId + ' ' +
          (context.workspace.length > 0) + ' ' + (context.signal instanceof AbortSignal) + ' ' +
          context.vars.mood + '\\n'
      }`,
    )
    const load = await loadPrefill(ws, {
      ...isolated(),
      model: 'claude-opus-4-1',
      history: [
        textMessage('user', 'hi'),
        textMessage('assistant', 'yo'),
        textMessage('user', 'q'),
      ],
      runId: 'run_x',
      vars: { mood: 'calm' },
    })
    expect(load).toMatchObject({ kind: 'dynamic', text: 'opus 3 run_x true true calm' })
    expect(load.source).toBe(join(ws, 'PREFILL.mjs'))
    expect(load.warning).toBeUndefined()
  })

  it('refuses generated text over maxBytes like a file over the cap: 50 MiB, and 65,537 bytes', async () => {
    await writeFile(
      join(ws, 'PREFILL.mjs'),
      `export const generate = () => 'x'.repeat(50 * 1024 * 1024)`,
    )
    const load = await loadPrefill(ws, isolated())
    expect(load.text).toBeUndefined()
    expect(load.kind).toBe('dynamic')
    expect(PrefillGenerateError.isInstance(load.warning)).toBe(true)
    expect(load.warning?.details).toMatchObject({ reason: 'too-large', maxBytes: 65_536 })
    // the boundary: exactly maxBytes passes, one byte more does not (multi-byte text counts bytes)
    await writeFile(join(ws, 'PREFILL.mjs'), `export const generate = () => 'é'.repeat(50)`)
    expect((await loadPrefill(ws, { ...isolated(), maxBytes: 100 })).text).toBe('é'.repeat(50))
    await writeFile(join(ws, 'PREFILL.mjs'), `export const generate = () => 'é'.repeat(51)`)
    const over = await loadPrefill(ws, { ...isolated(), maxBytes: 100 })
    expect(over.text).toBeUndefined()
    expect(over.warning?.details).toMatchObject({ reason: 'too-large', size: 102 })
  })

  it('passes a ModelInfo through unchanged', async () => {
    await writeFile(join(ws, 'PREFILL.mjs'), 'export const generate = ({ model }) => model.id')
    const model = getModelInfo('claude-haiku-4-5')
    expect(await readPrefillContent(ws, { ...isolated(), model })).toBe('claude-haiku-4-5')
  })

  it('loads PREFILL.js written as ESM, as CommonJS, and default exports', async () => {
    await writeFile(join(ws, 'PREFILL.js'), 'export function generate() { return "esm js" }')
    expect(await readPrefillContent(ws, isolated())).toBe('esm js')

    const cjs = join(ws, 'cjs')
    await mkdir(cjs)
    await writeFile(join(cjs, 'PREFILL.js'), 'module.exports = { generate: () => "from cjs" }')
    expect(await readPrefillContent(cjs, isolated())).toBe('from cjs')

    const def = join(ws, 'def')
    await mkdir(def)
    await writeFile(join(def, 'PREFILL.mjs'), 'export default () => "default fn"')
    expect(await readPrefillContent(def, isolated())).toBe('default fn')
  })

  it('prefers PREFILL.mjs over PREFILL.js over the Markdown files, unless dynamic is off', async () => {
    await writeFile(join(ws, 'PREFILL.md'), 'from markdown')
    await writeFile(join(ws, 'PREFILL.opus.md'), 'from opus markdown')
    await writeFile(join(ws, 'PREFILL.js'), 'export const generate = () => "from js"')
    expect(await readPrefillContent(ws, { ...isolated(), model: 'claude-opus-4-1' })).toBe(
      'from js',
    )
    await writeFile(join(ws, 'PREFILL.mjs'), 'export const generate = () => "from mjs"')
    expect(await readPrefillContent(ws, isolated())).toBe('from mjs')
    expect(
      await readPrefillContent(ws, { ...isolated(), dynamic: false, model: 'claude-opus-4-1' }),
    ).toBe('from opus markdown')
    expect(await readPrefillContent(ws, { ...isolated(), dynamic: false })).toBe('from markdown')
  })

  it('treats blank, null and undefined results as "no prefill"', async () => {
    for (const body of ['"   "', 'null', 'undefined']) {
      await writeFile(join(ws, 'PREFILL.mjs'), `export const generate = () => ${body}`)
      const load = await loadPrefill(ws, isolated())
      expect(load.text).toBeUndefined()
      expect(load.warning).toBeUndefined()
    }
  })

  it('turns errors into warnings: throw, wrong type, missing generate, syntax error', async () => {
    const cases: Array<[string, string]> = [
      ['export function generate() { throw new TypeError("boom") }', 'threw'],
      ['export const generate = () => 42', 'not-a-string'],
      ['export const notGenerate = () => "x"', 'no-generate'],
      ['export const generate = () => { return "unclosed', 'threw'],
      ['export const generate = async () => { throw new Error("async boom") }', 'threw'],
    ]
    for (const [i, [source, reason]] of cases.entries()) {
      const dir = join(ws, `case${i}`)
      await mkdir(dir)
      await writeFile(join(dir, 'PREFILL.mjs'), source)
      await writeFile(join(dir, 'PREFILL.md'), 'never used when a module exists')
      const load = await loadPrefill(dir, isolated())
      expect(load.text).toBeUndefined()
      expect(PrefillGenerateError.isInstance(load.warning)).toBe(true)
      expect(load.warning?.recoverable).toBe(true)
      expect(load.warning?.details).toMatchObject({ path: join(dir, 'PREFILL.mjs'), reason })
    }
  })

  it('times out a slow generate, aborts its signal, and never throws', async () => {
    await writeFile(
      join(ws, 'PREFILL.mjs'),
      `export function generate({ context }) {
         context.signal.addEventListener('abort', () => { globalThis.__prefillAborted = true })
         return new Promise(() => {})
       }`,
    )
    const started = performance.now()
    const load = await loadPrefill(ws, { ...isolated(), timeoutMs: 60 })
    const elapsed = performance.now() - started
    expect(load.text).toBeUndefined()
    expect(PrefillTimeoutError.isInstance(load.warning)).toBe(true)
    expect(load.warning?.details).toMatchObject({ timeoutMs: 60 })
    expect(elapsed).toBeGreaterThanOrEqual(55)
    expect((globalThis as { __prefillAborted?: boolean }).__prefillAborted).toBe(true)
  })

  it('sees edits to the module (import cache busted by mtime and size)', async () => {
    const loader = new DynamicPrefillLoader()
    const cache = createPrefillCache()
    const file = join(ws, 'PREFILL.mjs')
    await writeFile(file, 'export const generate = () => "version one"')
    expect(await readPrefillContent(ws, { cache, loader })).toBe('version one')
    await writeFile(file, 'export const generate = () => "version 2"')
    // Same size as before: only the mtime tells the versions apart.
    await utimes(file, new Date(), new Date(Date.now() + 5_000))
    expect(await readPrefillContent(ws, { cache, loader })).toBe('version 2')
  })

  it('imports an unchanged module once (module state persists between calls)', async () => {
    await writeFile(
      join(ws, 'PREFILL.mjs'),
      'let calls = 0\nexport const generate = () => "call " + ++calls',
    )
    const opts = isolated()
    expect(await readPrefillContent(ws, opts)).toBe('call 1')
    expect(await readPrefillContent(ws, opts)).toBe('call 2')
  })

  it('retries a module that failed to import once it is fixed', async () => {
    const opts = isolated()
    const file = join(ws, 'PREFILL.mjs')
    await writeFile(file, 'export const generate = ( => "broken"')
    expect((await loadPrefill(ws, opts)).warning).toBeDefined()
    await writeFile(file, 'export const generate = () => "fixed now"')
    expect(await readPrefillContent(ws, opts)).toBe('fixed now')
  })

  it('reports a directory named PREFILL.mjs as a read warning', async () => {
    await mkdir(join(ws, 'PREFILL.mjs'))
    const load = await loadPrefill(ws, isolated())
    expect(PrefillReadError.isInstance(load.warning)).toBe(true)
    expect(load.warning?.details).toMatchObject({ reason: 'EISDIR' })
  })

  it('aborts generate when the caller signal aborts', async () => {
    await writeFile(
      join(ws, 'PREFILL.mjs'),
      // The signal may already be aborted when generate() starts (a slow import under load).
      `export const generate = ({ context }) => new Promise((resolve) => {
         if (context.signal.aborted) resolve('saw abort')
         context.signal.addEventListener('abort', () => resolve('saw abort'))
       })`,
    )
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 20)
    const text = await readPrefillContent(ws, { ...isolated(), signal: controller.signal })
    expect(text).toBe('saw abort')
  })
})
