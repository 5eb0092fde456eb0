import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, expect, test } from 'vitest'
import { checkModelId, checkServedModel, probeBaseUrl } from './checks.js'

const servers: Server[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))))
})

async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler)
  servers.push(server)
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`
}

test('model ids: known ones (dated too) pass; an unknown one gets the closest suggestion', () => {
  expect(() => checkModelId('claude-haiku-4-5')).not.toThrow()
  expect(() => checkModelId('claude-haiku-4-5-20251001')).not.toThrow()
  expect(() => checkModelId('claude-haiku-4.5')).toThrow(
    'unknown model "claude-haiku-4.5" (did you mean claude-haiku-4-5?)',
  )
  expect(() => checkModelId('claude-sonet-4-6')).toThrow('(did you mean claude-sonnet-4-6?)')
  expect(() => checkModelId('gpt-4o')).toThrow(/^unknown model "gpt-4o"$/)
})

test('probeBaseUrl reads the model list of an OpenAI-compatible server; any HTTP answer is reachable', async () => {
  const url = await serve((_req, res) => {
    res.setHeader('content-type', 'application/json')
    res.end(
      JSON.stringify({
        object: 'list',
        data: [{ id: 'qwen2.5-7b-instruct' }, { id: 'llama-3.1-8b' }],
      }),
    )
  })
  const probe = await probeBaseUrl(`${url}/`)
  expect(probe).toEqual({ baseURL: url, models: ['qwen2.5-7b-instruct', 'llama-3.1-8b'] })
  expect(() => checkServedModel('qwen2.5-7b-instruct', probe)).not.toThrow()
  expect(() => checkServedModel('qwen2.5-7b', probe)).toThrow(
    `unknown model "qwen2.5-7b" at ${url} (did you mean qwen2.5-7b-instruct?)`,
  )
  const refusing = await serve((_req, res) => {
    res.statusCode = 401
    res.end('no')
  })
  expect(await probeBaseUrl(refusing)).toEqual({ baseURL: refusing, models: [] })
  expect(() => checkServedModel('anything', { baseURL: refusing, models: [] })).not.toThrow()
})

test('probeBaseUrl: a closed port, a silent server and a non-http URL are usage errors', async () => {
  const closed = await serve(() => {})
  await new Promise((r) => servers.pop()?.close(r))
  await expect(probeBaseUrl(closed)).rejects.toThrow(
    `cannot reach --base-url ${closed} (ECONNREFUSED)`,
  )
  const silent = await serve(() => {}) // never answers
  await expect(probeBaseUrl(silent, { timeoutMs: 50 })).rejects.toThrow('(no answer in time)')
  await expect(probeBaseUrl('ftp://x/v1')).rejects.toMatchObject({ problem: 'base_url' })
  await expect(probeBaseUrl('not a url')).rejects.toThrow('--base-url must be an http(s) URL')
})

test('a port fetch refuses (9, discard) is named as such, not as a failure of the server', async () => {
  await expect(probeBaseUrl('http://127.0.0.1:9/v1')).rejects.toThrow(
    'cannot reach --base-url http://127.0.0.1:9/v1 (fetch refuses port 9)',
  )
})
