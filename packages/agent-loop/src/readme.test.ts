import { expect, test } from 'vitest'
import { runReadmeExample } from '../../../test-utils/readme-example.js'

// Every runnable example of the package README, each under its own marker; imports of the
// package and its subpaths are pointed at the sources by test-utils' runReadmeExample.
const pkg = new URL('..', import.meta.url)

test('the README example (a tool round trip against testkit) runs and prints what it says', async () => {
  const { logs, expected } = await runReadmeExample(pkg)
  expect(expected.length).toBeGreaterThan(3)
  expect(logs).toEqual(expected)
})

test('the README /anthropic example (retries, refreshModels, exact counts) runs and prints what it says', async () => {
  const { logs, expected } = await runReadmeExample(pkg, '<!-- runnable-example:anthropic -->')
  expect(expected.length).toBeGreaterThan(3)
  expect(logs).toEqual(expected)
})

test('the README /completions example (a ChatML tool round trip) runs and prints what it says', async () => {
  const { logs, expected } = await runReadmeExample(pkg, '<!-- runnable-example:completions -->')
  expect(expected.length).toBeGreaterThan(2)
  expect(logs).toEqual(expected)
})

test('the README prompt-caching example runs and prints what it says', async () => {
  const { logs, expected } = await runReadmeExample(pkg, '<!-- runnable-example:cache -->')
  expect(expected.length).toBeGreaterThan(3)
  expect(logs).toEqual(expected)
})

test('the README plan.ask example runs and prints what it says', async () => {
  const { logs, expected } = await runReadmeExample(pkg, '<!-- runnable-example:plan-ask -->')
  expect(expected).toHaveLength(3)
  expect(logs).toEqual(expected)
}, 60_000)

test('the README Sessions example runs and prints what it says', async () => {
  const { logs, expected } = await runReadmeExample(pkg, '<!-- runnable-example:sessions -->')
  expect(expected.length).toBeGreaterThan(0)
  expect(logs).toEqual(expected)
})

test('the README /openai example (parallel calls streamed in pieces) runs and prints what it says', async () => {
  const { logs, expected } = await runReadmeExample(pkg, '<!-- runnable-example:openai -->')
  expect(expected.length).toBe(3)
  expect(logs).toEqual(expected)
})

test('the README durable-runs example (pause for approval, resume) runs and prints what it says', async () => {
  const { logs, expected } = await runReadmeExample(pkg, '<!-- runnable-example:durable -->')
  expect(expected).toHaveLength(3)
  expect(logs).toEqual(expected)
})

test('the README compaction example (a 6,000-token window) runs and prints what it says', async () => {
  const { logs, expected } = await runReadmeExample(pkg, '<!-- runnable-example:compaction -->')
  expect(expected.length).toBe(2)
  expect(logs).toEqual(expected)
})

test('the README /mcp example (an in-process MCP server’s tool, one call refused by its schema) runs and prints what it says', async () => {
  const { logs, expected } = await runReadmeExample(pkg, '<!-- runnable-example:mcp -->')
  expect(expected.length).toBe(5)
  expect(logs).toEqual(expected)
})

test('the README /otel example (GenAI spans of a tool round trip) runs and prints what it says', async () => {
  const { logs, expected } = await runReadmeExample(pkg, '<!-- runnable-example:otel -->')
  expect(expected.length).toBe(4)
  expect(logs).toEqual(expected)
})

test('the README per-step control example (prepareStep, toolChoice over /openai) runs and prints what it says', async () => {
  const { logs, expected } = await runReadmeExample(pkg, '<!-- runnable-example:steps -->')
  expect(expected).toHaveLength(3)
  expect(logs).toEqual(expected)
})

test('the README structured-output example (tools, a forced final tool, one repair) runs and prints what it says', async () => {
  const { logs, expected } = await runReadmeExample(pkg, '<!-- runnable-example:output -->')
  expect(expected).toHaveLength(3)
  expect(logs).toEqual(expected)
})
