import { randomUUID } from 'node:crypto'
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { format } from 'node:util'
import { expect, test } from 'vitest'

const dir = fileURLToPath(new URL('..', import.meta.url))

/** Imports of the package and its subpaths, pointed at their sources. */
const SOURCES: Record<string, string> = {
  '@contextkit/agent-loop/anthropic': join(dir, 'src', 'anthropic', 'index.ts'),
  '@contextkit/agent-loop/completions': join(dir, 'src', 'completions', 'index.ts'),
  '@contextkit/agent-loop/testing': join(dir, 'src', 'testing', 'index.ts'),
  '@contextkit/agent-loop': join(dir, 'src', 'index.ts'),
}

/**
 * Like test-utils' runReadmeExample, with the subpath imports pointed at their sources too: runs
 * the first ```ts block after `marker` and returns what it printed and what its `// =>` comments
 * say it prints.
 */
async function runExample(marker: string): Promise<{ logs: string[]; expected: string[] }> {
  const readme = await readFile(join(dir, 'README.md'), 'utf8')
  const at = readme.indexOf(marker)
  expect(at).toBeGreaterThan(0)
  const code = /```ts\n([\s\S]*?)\n```/.exec(readme.slice(at))?.[1] ?? ''
  const expected = code
    .split('\n')
    .flatMap((line) => /console\.log\(.*\/\/ => (.*)$/.exec(line)?.[1]?.trim() ?? [])
  let source = code
  for (const [name, path] of Object.entries(SOURCES))
    source = source.replaceAll(`'${name}'`, JSON.stringify(path))
  const tmp = join(dir, '.readme')
  await mkdir(tmp, { recursive: true })
  const file = join(tmp, `example-${randomUUID()}.ts`)
  await writeFile(file, source)
  const logs: string[] = []
  const original = console.log
  console.log = (...args: unknown[]) => {
    logs.push(format(...args))
  }
  try {
    await import(/* @vite-ignore */ file)
  } finally {
    console.log = original
    await rm(file, { force: true })
  }
  return { logs, expected }
}

test('the README example (a tool round trip against testkit) runs and prints what it says', async () => {
  const { logs, expected } = await runExample('<!-- runnable-example -->')
  expect(expected.length).toBeGreaterThan(3)
  expect(logs).toEqual(expected)
})

test('the README /anthropic example (retries, refreshModels, exact counts) runs and prints what it says', async () => {
  const { logs, expected } = await runExample('<!-- runnable-example:anthropic -->')
  expect(expected.length).toBeGreaterThan(3)
  expect(logs).toEqual(expected)
})

test('the README /completions example (a ChatML tool round trip) runs and prints what it says', async () => {
  const { logs, expected } = await runExample('<!-- runnable-example:completions -->')
  expect(expected.length).toBeGreaterThan(2)
  expect(logs).toEqual(expected)
})
