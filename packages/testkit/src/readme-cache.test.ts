import { expect, test } from 'vitest'
import { runReadmeExample } from '../../../test-utils/readme-example.js'

test('the README prompt-cache example runs and prints what it says', async () => {
  const { logs, expected } = await runReadmeExample(
    new URL('..', import.meta.url),
    '<!-- cache-example -->',
  )
  expect(expected).toHaveLength(4)
  expect(logs).toEqual(expected)
})
