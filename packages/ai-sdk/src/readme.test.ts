import { expect, test } from 'vitest'
import { runReadmeExample } from '../../../test-utils/readme-example.js'

const pkg = new URL('..', import.meta.url)

test('the README example (four middleware around the AI SDK mock model) runs and prints what it says', async () => {
  const { logs, expected } = await runReadmeExample(pkg)
  expect(expected.length).toBeGreaterThan(4)
  expect(logs).toEqual(expected)
}, 60_000)

test('the useChat stream example (a runAgent run against testkit read back by readUIMessageStream) prints what it says', async () => {
  const { logs, expected } = await runReadmeExample(pkg, '<!-- runnable-example:ui-stream -->')
  expect(expected).toHaveLength(3)
  expect(logs).toEqual(expected)
}, 60_000)
