import { expect, test } from 'vitest'
import { runReadmeExample } from '../../../test-utils/readme-example.js'

test('the README example runs and prints what it says', async () => {
  const { logs, expected } = await runReadmeExample(new URL('..', import.meta.url))
  expect(expected.length).toBeGreaterThan(0)
  expect(logs).toEqual(expected)
}, 60_000)

test('the README traces example (write a run trace, read it back as the inspector does) runs', async () => {
  const { logs, expected } = await runReadmeExample(
    new URL('..', import.meta.url),
    '<!-- runnable-example:traces -->',
  )
  expect(expected).toEqual(['0:loop.request 1:loop.response'])
  expect(logs).toEqual(expected)
}, 60_000)
