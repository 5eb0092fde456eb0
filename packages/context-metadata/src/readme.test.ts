import { expect, test } from 'vitest'
import { runReadmeExample } from '../../../test-utils/readme-example.js'

test('the README example runs and prints what it says', async () => {
  const { logs, expected } = await runReadmeExample(new URL('..', import.meta.url))
  expect(expected.length).toBeGreaterThan(0)
  expect(logs).toEqual(expected)
})

test('the README example of the extension rule runs and prints what it says', async () => {
  const { logs, expected } = await runReadmeExample(
    new URL('..', import.meta.url),
    '<!-- runnable-example:extension -->',
  )
  expect(expected.length).toBe(5)
  expect(logs).toEqual(expected)
})
