// Two copies of core in one process, as an app gets when it depends on another version of core
// than a package it uses: the built dist is copied twice and each copy imported from its own
// folder (so each has its own module instances, as two installed versions do).
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'

type Core = typeof import('./index.js')

const PACKAGE = fileURLToPath(new URL('..', import.meta.url))
let work = ''
let a: Core
let b: Core

/** Copy dist/ into `name`/ (a folder under core's node_modules, so zod still resolves). */
async function copyOfCore(name: string): Promise<Core> {
  const dir = join(work, name)
  await mkdir(dir)
  await cp(join(PACKAGE, 'dist'), join(dir, 'dist'), { recursive: true })
  await writeFile(join(dir, 'package.json'), '{ "type": "module" }\n')
  return (await import(pathToFileURL(join(dir, 'dist', 'index.js')).href)) as Core
}

beforeAll(async () => {
  await mkdir(join(PACKAGE, 'node_modules'), { recursive: true })
  work = await mkdtemp(join(PACKAGE, 'node_modules', '.two-copies-'))
  a = await copyOfCore('a')
  b = await copyOfCore('b')
})

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true })
})

describe('two copies of core in one process', () => {
  test('are really two copies (their classes differ)', () => {
    expect(a.ModelRegistry).not.toBe(b.ModelRegistry)
    expect(new a.ModelRegistry()).not.toBeInstanceOf(b.ModelRegistry)
  })

  test('share one default model registry: registerModel in one is seen by the other', () => {
    const id = `acme-two-copies-${process.pid}`
    expect(b.getModelInfo(id).known).toBe(false)
    a.registerModel(id, { family: 'acme', contextWindow: 123_456 })
    const info = b.getModelInfo(id)
    expect(info.known).toBe(true)
    expect(info.contextWindow).toBe(123_456)
  })

  test('ModelRegistry.isInstance accepts a registry of either copy, and nothing else', () => {
    expect(b.ModelRegistry.isInstance(new a.ModelRegistry())).toBe(true)
    expect(a.ModelRegistry.isInstance(new b.ModelRegistry({}))).toBe(true)
    for (const other of [null, undefined, {}, new Map(), 'registry', { register() {} }]) {
      expect(a.ModelRegistry.isInstance(other)).toBe(false)
    }
  })

  test("refreshModels of one copy takes the other copy's registry", () => {
    const registry = new a.ModelRegistry({})
    const page = { data: [{ id: 'claude-two-copies-9', max_input_tokens: 50_000 }] }
    const result = b.refreshModels(page, { registry })
    expect(result.skipped).toEqual([])
    expect(registry.get('claude-two-copies-9')).toMatchObject({
      known: true,
      contextWindow: 50_000,
    })
  })

  test('refreshModels still rejects a registry look-alike, naming the option', () => {
    expect(() => b.refreshModels({ data: [] }, { registry: { register() {} } as never })).toThrow(
      b.ValidationError,
    )
    expect(() => b.refreshModels({ data: [] }, { registry: {} as never })).toThrow(/registry/)
  })
})
