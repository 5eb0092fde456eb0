import { createServer } from 'node:net'
import Anthropic from '@anthropic-ai/sdk'
import { getModelInfo, textMessage } from '@contextkit/core'
import { expect, test } from 'vitest'
import { ProviderError } from '../provider/errors.js'
import { runAgent } from '../run/run-agent.js'
import { anthropicProvider } from './anthropic-provider.js'

/** A port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as { port: number }).port
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

test('a server that cannot be reached: the error names its address and the system code', async () => {
  const baseURL = `http://127.0.0.1:${await closedPort()}`
  const run = runAgent({
    provider: anthropicProvider({ client: new Anthropic({ baseURL, apiKey: 'k', maxRetries: 0 }) }),
    model: getModelInfo('claude-haiku-4-5'),
    messages: [textMessage('user', 'hi')],
  })
  for await (const _ of run.events) {
    // drain
  }
  const { error, stopReason } = await run.result
  expect(stopReason).toBe('error')
  expect(ProviderError.isInstance(error)).toBe(true)
  expect(error?.message).toMatch(
    new RegExp(
      `^Could not reach the Anthropic API at ${baseURL.replaceAll('.', '\\.')} \\(ECONNREFUSED\\): `,
    ),
  )
  expect(error?.details).toMatchObject({ url: baseURL, code: 'ECONNREFUSED' })
})
