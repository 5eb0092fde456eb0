import { request } from 'node:http'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { type AnthropicEmulator, startAnthropicEmulator } from './index.js'

let emu: AnthropicEmulator
beforeAll(async () => {
  emu = await startAnthropicEmulator({ script: [] })
})
afterAll(() => emu.close())

const headers = { 'x-api-key': 'k', 'anthropic-version': '2023-06-01' }

/** One raw request (the path is sent as written, never normalized by a client). */
function send(
  method: string,
  path: string,
  body?: Buffer | string,
  extra: Record<string, string> = {},
): Promise<{ status: number; json: unknown }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: emu.port, method, path, headers: { ...headers, ...extra } },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8')
          let json: unknown
          try {
            json = JSON.parse(text)
          } catch {
            json = text
          }
          resolve({ status: res.statusCode ?? 0, json })
        })
      },
    )
    req.on('error', reject)
    req.end(body)
  })
}

const alive = async () => expect((await send('GET', '/v1/models')).status).toBe(200)

describe('hostile requests never kill the emulator', () => {
  test.each(['//', '///', '//x/y', '//?a=1'])('GET %s answers 404 JSON', async (path) => {
    const res = await send('GET', path)
    expect(res.status).toBe(404)
    expect(res.json).toMatchObject({ type: 'error', error: { type: 'not_found_error' } })
    await alive()
  })

  test('a 10k-deep tool_use input answers 400 invalid_request_error, like the API', async () => {
    // written as text: JSON.stringify itself cannot nest this deep
    const input = `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`
    const body = JSON.stringify({
      model: 'claude-haiku-4-5',
      max_tokens: 10,
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 't', input: 0 }] },
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'ok' }],
        },
      ],
    }).replace('"input":0', `"input":${input}`)
    const res = await send('POST', '/v1/messages', body, { 'content-type': 'application/json' })
    expect(res.status).toBe(400)
    expect(res.json).toMatchObject({ error: { type: 'invalid_request_error' } })
    expect(emu.failures).toEqual([])
    await alive()
  })
})

describe('/v1/completions rejects what the API rejects', () => {
  const post = (body: Buffer | string) =>
    send('POST', '/v1/completions', body, { 'content-type': 'application/json' })

  test('stream: "yes" answers 400', async () => {
    const res = await post(JSON.stringify({ model: 'm', prompt: 'p', stream: 'yes' }))
    expect(res.status).toBe(400)
    expect(res.json).toMatchObject({ error: { type: 'invalid_request_error' } })
  })

  test('an invalid UTF-8 body answers 400', async () => {
    const json = Buffer.from(JSON.stringify({ model: 'm', prompt: 'p-X' }))
    json[json.indexOf('X')] = 0xff
    const res = await post(json)
    expect(res.status).toBe(400)
    expect(res.json).toMatchObject({ error: { type: 'invalid_request_error' } })
  })
})
