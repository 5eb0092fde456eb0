import { expect, test } from 'vitest'
import { docsFile, runReadmeExample } from '../../../test-utils/readme-example.js'

const pkg = new URL('..', import.meta.url)

test('the README example runs and prints what it says', async () => {
  const { logs, expected } = await runReadmeExample(pkg)
  expect(expected.length).toBeGreaterThan(0)
  expect(logs).toEqual(expected)
})

test("the tracing guide's example (a run's trace file, then the inspector over it) runs and prints what it says", async () => {
  const { logs, expected } = await runReadmeExample(pkg, '<!-- runnable-example:traced-run -->', {
    file: docsFile('guides/tracing-and-inspector.md'),
  })
  expect(expected).toHaveLength(4)
  expect(logs).toEqual(expected)
})
