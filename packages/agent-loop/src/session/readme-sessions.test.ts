import { randomUUID } from 'node:crypto'
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { format } from 'node:util'
import { expect, test } from 'vitest'

// The package README's runnable example belongs to the loop; the Sessions section has its own,
// marked `<!-- runnable-example:sessions -->`, run here the same way (imports of the package
// pointed at its source, every `// =>` comment the expected output of that console.log).
const MARKER = '<!-- runnable-example:sessions -->'

test('the README Sessions example runs and prints what it says', async () => {
  const dir = fileURLToPath(new URL('../..', import.meta.url))
  const readme = await readFile(join(dir, 'README.md'), 'utf8')
  const at = readme.indexOf(MARKER)
  expect(at).toBeGreaterThan(0)
  const code = /```ts\n([\s\S]*?)\n```/.exec(readme.slice(at))?.[1] ?? ''
  const expected = code
    .split('\n')
    .flatMap((line) => /console\.log\(.*\/\/ => (.*)$/.exec(line)?.[1]?.trim() ?? [])
  expect(expected.length).toBeGreaterThan(0)
  const source = code.replaceAll(
    "'@contextkit/agent-loop'",
    JSON.stringify(join(dir, 'src', 'index.ts')),
  )
  const tmp = join(dir, '.readme')
  await mkdir(tmp, { recursive: true })
  const file = join(tmp, `sessions-${randomUUID()}.ts`)
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
