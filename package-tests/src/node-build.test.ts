// Under Node every entry of every package resolves into the package's Node build (`dist/bundle/`:
// entries bundled, shared modules split into chunks), never into the per-module files bundlers
// take, so one package never runs two copies of a module: a class thrown through one subpath is
// the class another subpath exports. Each check runs in a fresh Node process started in the
// package folder, which imports its own entries by name (package self-reference).
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, resolve } from 'node:path'
import { describe, expect, test } from 'vitest'
import { NODE_BUILD_DIR } from '../../tsup.base.js'
import { run } from './consumer.js'
import { publishablePackages } from './workspace.js'

const packages = publishablePackages()

/** Run `source` as an ES module (or CommonJS) in `dir`; its stdout parsed as JSON. */
async function evaluate(dir: string, source: string, type: 'module' | 'commonjs') {
  const { stdout } = await run(process.execPath, [`--input-type=${type}`, '-e', source], {
    cwd: dir,
    timeoutMs: 60_000,
  })
  return JSON.parse(stdout) as unknown
}

describe.each(packages.map((p) => [p.json.name, p] as const))('%s', (_, pkg) => {
  test(`import and require resolve every entry into dist/${NODE_BUILD_DIR}/`, async () => {
    const specifiers = pkg.entries.map((e) => e.specifier)
    const resolved = (await evaluate(
      pkg.dir,
      `import { createRequire } from 'node:module'
const require = createRequire(process.cwd() + '/')
const specifiers = ${JSON.stringify(specifiers)}
console.log(JSON.stringify(specifiers.map((s) => [import.meta.resolve(s), require.resolve(s)])))`,
      'module',
    )) as [string, string][]
    const bundled = join(pkg.dir, 'dist', NODE_BUILD_DIR, '/')
    for (const [i, [imported, required]] of resolved.entries()) {
      expect(new URL(imported).pathname, specifiers[i]).toMatch(new RegExp(`^${bundled}`))
      expect(required, specifiers[i]).toMatch(new RegExp(`^${bundled}`))
    }
  })
})

// The root and a subpath of agent-loop: what /anthropic throws is the root's class, and core's.
const agentLoop = packages.find((p) => p.json.name === '@contextkit/agent-loop')!
const THROW_THROUGH_SUBPATH = `
const caught = []
try {
  anthropic.toStreamParams({ model: { id: 'm' }, system: [], messages: [], prompt: 'x', maxTokens: 8 })
} catch (error) {
  caught.push(error)
}
try {
  await anthropic.refreshModels({})
} catch (error) {
  caught.push(error)
}
console.log(JSON.stringify({
  names: caught.map((e) => e.name),
  providerError: caught[0] instanceof root.ProviderError,
  agentLoopError: caught[0] instanceof root.AgentLoopError,
  contextkitError: caught.map((e) => e instanceof core.ContextkitError),
  validationError: caught[1] instanceof core.ValidationError,
}))`

test.each([
  [
    'import',
    'module',
    `const root = await import('@contextkit/agent-loop')
const anthropic = await import('@contextkit/agent-loop/anthropic')
const core = await import('@contextkit/core')
${THROW_THROUGH_SUBPATH}`,
  ],
  [
    'require',
    'commonjs',
    `const root = require('@contextkit/agent-loop')
const anthropic = require('@contextkit/agent-loop/anthropic')
const core = require('@contextkit/core')
;(async () => {
${THROW_THROUGH_SUBPATH}
})()`,
  ],
] as const)(
  'agent-loop (%s): an error thrown through /anthropic is an instance of the classes the root and core export',
  async (_, type, source) => {
    expect(await evaluate(agentLoop.dir, source, type)).toEqual({
      names: ['ProviderError', 'ValidationError'],
      providerError: true,
      agentLoopError: true,
      contextkitError: [true, true],
      validationError: true,
    })
  },
)

/**
 * Every file Node loads for `entry` (a built file) and the packages they import, following our
 * own packages' imports into their Node builds: the static `import … from` graph, which is all a
 * bundled entry has (a lazily loaded module is reached through a call, never through an import).
 */
function loadedPackages(entry: string): Set<string> {
  const seen = new Set<string>()
  const packages = new Set<string>()
  const stack = [entry]
  while (stack.length > 0) {
    const file = stack.pop()!
    if (seen.has(file)) continue
    seen.add(file)
    const text = readFileSync(file, 'utf8')
    const statements = /^\s*(?:import(?!\s*[.(])|export)\b[^'"`;]*?(?:from\s*)?["']([^"']+)["']/gm
    for (const m of text.matchAll(statements)) {
      const specifier = m[1]!
      if (specifier.startsWith('.')) stack.push(resolve(dirname(file), specifier))
      else if (specifier.startsWith('@contextkit/'))
        stack.push(createRequire(file).resolve(specifier))
      else packages.add(specifier.startsWith('node:') ? 'node:' : specifier)
    }
  }
  return packages
}

test("a cold import of agent-loop's root loads no zod, nor core's root, /store or /check (issue 46)", () => {
  const resolveFrom = createRequire(join(agentLoop.dir, 'package.json'))
  for (const entry of [
    '@contextkit/agent-loop',
    '@contextkit/core',
    '@contextkit/core/store',
    '@contextkit/core/check',
    '@contextkit/formatters',
  ]) {
    const packages = [...loadedPackages(resolveFrom.resolve(entry))]
    expect(
      packages.filter((p) => p === 'zod' || p.startsWith('zod/')),
      entry,
    ).toEqual([])
  }
  expect(loadedPackages(resolveFrom.resolve('@contextkit/core/schemas'))).toContain('zod')
})

test("agent-loop's Node build loads the application's zod when a call needs it, not before", async () => {
  const source = `const root = await import('@contextkit/agent-loop')
const zm = await import('zod/mini')
const z = await import('zod')
// zod/mini schemas cannot convert themselves: zod is loaded for it, the application's instance
const tool = root.defineTool({ name: 't', description: '', input: zm.object({ q: zm.string() }), execute: () => '' })
const json = root.jsonSchemaTool({ name: 'j', description: '', inputSchema: { type: 'object' }, execute: () => '' })
console.log(JSON.stringify({ inputSchema: tool.inputSchema, sameZod: json.input instanceof z.ZodType }))`
  expect(await evaluate(agentLoop.dir, source, 'module')).toEqual({
    inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
    sameZod: true,
  })
})
