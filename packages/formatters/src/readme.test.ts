import { expect, test } from 'vitest'
import { runReadmeExample } from '../../../test-utils/readme-example.js'

test('the README example runs and prints what it says', async () => {
  const { logs, expected } = await runReadmeExample(new URL('..', import.meta.url))
  expect(expected.length).toBeGreaterThan(0)
  expect(logs).toEqual(expected)
})

test("the README's example for the original design's names runs and prints what it says", async () => {
  const { logs, expected } = await runReadmeExample(
    new URL('..', import.meta.url),
    '<!-- runnable-example:seed -->',
  )
  expect(expected.length).toBeGreaterThan(0)
  expect(logs).toEqual(expected)
})
