import { randomUUID } from 'node:crypto'
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { format } from 'node:util'
import { expect, test } from 'vitest'
import { readReadmeExample } from '../../test-utils/readme-example.js'

// The root README's tour: every `<!-- tour:NAME -->` block runs here (from examples/, where every
// @contextkit package resolves), and prints what its `// =>` comments say.
const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
const scratch = join(repo, 'examples', '.readme')

async function runBlock(marker: string) {
  const { code, expected } = await readReadmeExample(repo, marker)
  await mkdir(scratch, { recursive: true })
  const file = join(scratch, `tour-${randomUUID()}.ts`)
  await writeFile(file, code)
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

test('every tour example of the root README runs and prints what it says', async () => {
  const readme = await readFile(join(repo, 'README.md'), 'utf8')
  const markers = [...readme.matchAll(/<!-- tour:([\w-]+) -->/g)].map((m) => m[0])
  expect(markers.map((m) => /tour:([\w-]+)/.exec(m)?.[1])).toEqual([
    'core',
    'formatters',
    'context-metadata',
    'prefill',
    'resumption',
    'preload',
    'agent-loop',
    'testkit',
  ])
  for (const marker of markers) {
    const { logs, expected } = await runBlock(marker)
    expect(expected.length, marker).toBeGreaterThan(0)
    expect({ marker, logs }).toEqual({ marker, logs: expected })
  }
}, 120_000)

test('the README opens with the smallest agent: the first code block, three imports, and it runs', async () => {
  const readme = await readFile(join(repo, 'README.md'), 'utf8')
  const first = /```ts\n([\s\S]*?)\n```/.exec(readme)?.[1] ?? ''
  const { code, expected } = await readReadmeExample(repo, '<!-- smallest-agent -->')
  expect(code).toBe(first)
  expect(readme.indexOf('<!-- smallest-agent -->')).toBeLessThan(readme.indexOf('## Install'))
  expect(code.match(/^import /gm)).toHaveLength(3)
  expect(code).toContain("prompt: 'Hi'")
  const { logs } = await runBlock('<!-- smallest-agent -->')
  expect(logs).toEqual(expected)
}, 60_000)

test('the README quick start keeps its two commands', async () => {
  const readme = await readFile(join(repo, 'README.md'), 'utf8')
  expect(readme).toContain('npx --yes pnpm@10.34.9 install && npx --yes pnpm@10.34.9 demo\n')
  expect(readme).toContain('npx --yes pnpm@10.34.9 install && npx --yes pnpm@10.34.9 test\n')
})
