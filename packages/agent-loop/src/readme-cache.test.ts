import { randomUUID } from 'node:crypto'
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { format } from 'node:util'
import { expect, test } from 'vitest'

// The Prompt caching section's example, marked `<!-- runnable-example:cache -->`, run like the
// main one (package imports pointed at the sources; every `// =>` is the expected output).
const MARKER = '<!-- runnable-example:cache -->'

test('the README prompt-caching example runs and prints what it says', async () => {
  const dir = fileURLToPath(new URL('..', import.meta.url))
  const readme = await readFile(join(dir, 'README.md'), 'utf8')
  const at = readme.indexOf(MARKER)
  expect(at).toBeGreaterThan(0)
  const code = /```ts\n([\s\S]*?)\n```/.exec(readme.slice(at))?.[1] ?? ''
  const expected = code
    .split('\n')
    .flatMap((line) => /console\.log\(.*\/\/ => (.*)$/.exec(line)?.[1]?.trim() ?? [])
  expect(expected.length).toBeGreaterThan(3)
  const source = code
    .replaceAll(
      "'@contextkit/agent-loop/anthropic'",
      JSON.stringify(join(dir, 'src', 'anthropic', 'index.ts')),
    )
    .replaceAll("'@contextkit/agent-loop'", JSON.stringify(join(dir, 'src', 'index.ts')))
  const tmp = join(dir, '.readme')
  await mkdir(tmp, { recursive: true })
  const file = join(tmp, `cache-${randomUUID()}.ts`)
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
  expect(logs).toEqual(expected)
})
