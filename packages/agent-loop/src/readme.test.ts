import { readFileSync } from 'node:fs'
import { expect, test } from 'vitest'
import { docsFile, runReadmeExample } from '../../../test-utils/readme-example.js'
import { RunAgentOptionsCheck } from './run/option-checks.js'

// Every runnable example of the package README and of the guides it links (docs/guides/), each
// under its own marker; imports of the package and its subpaths are pointed at the sources by
// test-utils' runReadmeExample.
const pkg = new URL('..', import.meta.url)

/** Run the example under `marker` in the guide `name` (docs/guides/<name>.md). */
function runGuideExample(name: string, marker: string) {
  return runReadmeExample(pkg, marker, { file: docsFile(`guides/${name}.md`) })
}

test('the README example (a tool round trip against testkit) runs and prints what it says', async () => {
  const { logs, expected } = await runReadmeExample(pkg)
  expect(expected.length).toBeGreaterThan(3)
  expect(logs).toEqual(expected)
})

test("the README's option table names every runAgent option, and only those", () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
  const from = readme.indexOf('| option | default | meaning |')
  const table = readme.slice(from, readme.indexOf('\n\n', from))
  const documented = [...table.matchAll(/^\| `(\w+)` \|/gm)].map((m) => m[1])
  expect(documented.length).toBeGreaterThan(20)
  expect(documented.sort()).toEqual(Object.keys(RunAgentOptionsCheck.shape).sort())
})

test('the providers guide /anthropic example (retries, refreshModels, exact counts) runs and prints what it says', async () => {
  const { logs, expected } = await runGuideExample(
    'providers',
    '<!-- runnable-example:anthropic -->',
  )
  expect(expected.length).toBeGreaterThan(3)
  expect(logs).toEqual(expected)
})

test('the providers guide /completions example (a ChatML tool round trip) runs and prints what it says', async () => {
  const { logs, expected } = await runGuideExample(
    'providers',
    '<!-- runnable-example:completions -->',
  )
  expect(expected.length).toBeGreaterThan(2)
  expect(logs).toEqual(expected)
})

test('the providers guide /openai example (parallel calls streamed in pieces) runs and prints what it says', async () => {
  const { logs, expected } = await runGuideExample('providers', '<!-- runnable-example:openai -->')
  expect(expected.length).toBe(3)
  expect(logs).toEqual(expected)
})

test('the caching guide example runs and prints what it says', async () => {
  const { logs, expected } = await runGuideExample('caching', '<!-- runnable-example:cache -->')
  expect(expected.length).toBeGreaterThan(3)
  expect(logs).toEqual(expected)
})

test('the loop guide plan.ask example runs and prints what it says', async () => {
  const { logs, expected } = await runGuideExample('the-loop', '<!-- runnable-example:plan-ask -->')
  expect(expected).toHaveLength(3)
  expect(logs).toEqual(expected)
}, 60_000)

test('the loop guide per-step control example (prepareStep, toolChoice over /openai) runs and prints what it says', async () => {
  const { logs, expected } = await runGuideExample('the-loop', '<!-- runnable-example:steps -->')
  expect(expected).toHaveLength(3)
  expect(logs).toEqual(expected)
})

test('the loop guide structured-output example (tools, a forced final tool, one repair) runs and prints what it says', async () => {
  const { logs, expected } = await runGuideExample('the-loop', '<!-- runnable-example:output -->')
  expect(expected).toHaveLength(3)
  expect(logs).toEqual(expected)
})

test('the sessions guide example runs and prints what it says', async () => {
  const { logs, expected } = await runGuideExample(
    'sessions-and-durable-runs',
    '<!-- runnable-example:sessions -->',
  )
  expect(expected.length).toBeGreaterThan(0)
  expect(logs).toEqual(expected)
})

test('the tools guide approval example (pause for approval, resume) runs and prints what it says', async () => {
  const { logs, expected } = await runGuideExample(
    'tools-and-approvals',
    '<!-- runnable-example:durable -->',
  )
  expect(expected).toHaveLength(3)
  expect(logs).toEqual(expected)
})

test('the tools guide /mcp example (an in-process MCP server’s tool, one call refused by its schema) runs and prints what it says', async () => {
  const { logs, expected } = await runGuideExample(
    'tools-and-approvals',
    '<!-- runnable-example:mcp -->',
  )
  expect(expected.length).toBe(5)
  expect(logs).toEqual(expected)
})

test('the compaction guide example (a 6,000-token window) runs and prints what it says', async () => {
  const { logs, expected } = await runGuideExample(
    'compaction',
    '<!-- runnable-example:compaction -->',
  )
  expect(expected.length).toBe(2)
  expect(logs).toEqual(expected)
})

test('the middleware guide example (a middleware of your own) runs and prints what it says', async () => {
  const { logs, expected } = await runGuideExample(
    'middleware',
    '<!-- runnable-example:middleware -->',
  )
  expect(expected).toHaveLength(3)
  expect(logs).toEqual(expected)
})

test('the tracing guide /otel example (GenAI spans of a tool round trip) runs and prints what it says', async () => {
  const { logs, expected } = await runGuideExample(
    'tracing-and-inspector',
    '<!-- runnable-example:otel -->',
  )
  expect(expected.length).toBe(4)
  expect(logs).toEqual(expected)
})

test('the testing guide scriptedProvider example runs and prints what it says', async () => {
  const { logs, expected } = await runGuideExample('testing', '<!-- runnable-example:scripted -->')
  expect(expected).toHaveLength(2)
  expect(logs).toEqual(expected)
})
