import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, test, vi } from 'vitest'

const PACKAGE = fileURLToPath(new URL('../..', import.meta.url))

/** Run `source` (an ES module) in a fresh Node process from the package folder; its stdout. */
function node(source: string): string {
  const out = spawnSync(process.execPath, ['--input-type=module', '-e', source], {
    cwd: PACKAGE,
    encoding: 'utf8',
  })
  expect(out.stderr).toBe('')
  return out.stdout.trim()
}

const AJV_LOADED = `Object.keys(createRequire(import.meta.url).cache).some((p) => /[\\\\/]ajv[\\\\/]/.test(p))`

describe('Ajv is loaded on first use', () => {
  test('importing the built package root does not load Ajv; the first jsonSchemaTool call does', () => {
    const out = node(`
      import { createRequire } from 'node:module'
      const { jsonSchemaTool } = await import('@contextkit/agent-loop')
      const before = ${AJV_LOADED}
      const tool = jsonSchemaTool({ name: 't', description: 'd', execute: () => 'ok',
        inputSchema: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] } })
      const after = ${AJV_LOADED}
      console.log(JSON.stringify([before, after, tool.input.safeParse({}).success]))`)
    expect(JSON.parse(out)).toEqual([false, true, false])
  })

  test('where no synchronous require exists, input is checked once Ajv is imported', async () => {
    vi.resetModules()
    const proc = process as { getBuiltinModule?: unknown }
    const original = proc.getBuiltinModule
    proc.getBuiltinModule = undefined
    try {
      const { jsonSchemaTool } = await import('./json-schema-tool.js')
      const base = { name: 't', description: 'd', execute: () => 'ok' }
      // a schema Ajv cannot compile fails each call instead of the definition (until
      // Ajv is loaded; from then on definitions compile at once, as in Node)
      const broken = jsonSchemaTool({
        ...base,
        inputSchema: { type: 'object', properties: { a: { type: 5 } } },
      })
      const failed = await broken.input.safeParseAsync({ a: 'x' })
      expect(failed.error?.issues[0]?.message).toMatch(/not a valid JSON Schema/)
      const tool = jsonSchemaTool({
        ...base,
        inputSchema: { type: 'object', properties: { a: { type: 'string', default: 'x' } } },
      })
      const bad = await tool.input.safeParseAsync({ a: 1 })
      expect(bad.error?.issues.map((i) => i.path)).toEqual([['a']])
      expect((await tool.input.safeParseAsync({})).data).toEqual({ a: 'x' })
      expect(() =>
        jsonSchemaTool({
          ...base,
          inputSchema: { type: 'object', properties: { a: { type: 5 } } },
        }),
      ).toThrow(/not a valid JSON Schema/)
    } finally {
      proc.getBuiltinModule = original
      vi.resetModules()
    }
  })
})
