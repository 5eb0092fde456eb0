import { createServer } from 'node:net'
import Anthropic from '@anthropic-ai/sdk'
import { describe, expect, test } from 'vitest'
import {
  type AnthropicEmulatorOptions,
  EmulatorConfigError,
  startAnthropicEmulator,
  TestkitError,
} from './index.js'

const params = {
  model: 'claude-haiku-4-5',
  max_tokens: 50,
  messages: [{ role: 'user' as const, content: 'hi' }],
}

describe('options and lifecycle', () => {
  test('bad options are rejected with EmulatorConfigError', async () => {
    const bad: unknown[] = [
      undefined,
      {},
      { script: 'nope' },
      { script: [], port: -1 },
      { script: [], port: 1.5 },
      { script: [], transport: { writeSize: 0 } },
      { script: [], transport: { chunkDelayMs: Number.NaN } },
      { script: [], maxBodyBytes: 0 },
      { script: [], models: [{ id: 'a' }, { id: 'a' }] },
    ]
    for (const options of bad) {
      const err = await startAnthropicEmulator(options as AnthropicEmulatorOptions).catch(
        (e: unknown) => e,
      )
      expect(EmulatorConfigError.isInstance(err), JSON.stringify(options)).toBe(true)
      expect(TestkitError.isInstance(err)).toBe(true)
    }
  })

  test('a port already in use is an EmulatorConfigError; an explicit free port is used', async () => {
    const blocker = createServer()
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r))
    const taken = (blocker.address() as { port: number }).port
    const err = await startAnthropicEmulator({ script: [], port: taken }).catch((e: unknown) => e)
    expect(EmulatorConfigError.isInstance(err)).toBe(true)
    await new Promise<void>((r) => blocker.close(() => r()))
    const emu = await startAnthropicEmulator({ script: [], port: taken })
    expect(emu.url).toBe(`http://127.0.0.1:${taken}`)
    await emu.close()
  })

  test('close() ends in-flight slow streams promptly and is idempotent', async () => {
    const emu = await startAnthropicEmulator({
      script: [{ text: 'x'.repeat(200), transport: { chunkDelayMs: 1000, deltaChars: 1 } }],
    })
    const client = new Anthropic({ apiKey: 'k', baseURL: emu.url, maxRetries: 0 })
    const stream = client.messages.stream(params)
    const failed = stream.finalMessage().catch((e: unknown) => e)
    await new Promise((r) => stream.on('connect', () => r(undefined)))
    const t0 = performance.now()
    await Promise.all([emu.close(), emu.close()])
    expect(performance.now() - t0).toBeLessThan(1000)
    expect(await failed).toBeInstanceOf(Error)
    expect(emu.failures).toEqual([])
  })

  test('a client that aborts mid-stream does not disturb the emulator', async () => {
    const emu = await startAnthropicEmulator({
      script: [{ text: 'y'.repeat(100), transport: { chunkDelayMs: 20, deltaChars: 1 } }, 'next'],
    })
    const client = new Anthropic({ apiKey: 'k', baseURL: emu.url, maxRetries: 0 })
    const stream = client.messages.stream(params)
    const outcome = stream.finalMessage().catch((e: unknown) => e)
    let seen = 0
    await new Promise<void>((resolve) =>
      stream.on('text', () => {
        if (++seen === 3) {
          stream.abort()
          resolve()
        }
      }),
    )
    expect(await outcome).toBeInstanceOf(Anthropic.APIUserAbortError)
    const ok = await client.messages.create(params)
    expect(ok.content).toEqual([{ type: 'text', text: 'next' }])
    expect(emu.failures).toEqual([])
    await emu.close()
  })

  test('every request is recorded, including rejected ones, with the parsed body', async () => {
    const emu = await startAnthropicEmulator({ script: [] })
    const send = (headers: Record<string, string>, body: string) =>
      fetch(`${emu.url}/v1/messages?beta=true`, { method: 'POST', headers, body })
    expect((await send({}, '{"model":"x"}')).status).toBe(401)
    expect((await send({ 'x-api-key': 'k', 'anthropic-version': 'v' }, '{oops')).status).toBe(400)
    expect((await fetch(`${emu.url}/v1/models/%E0%A4%A`)).status).toBe(401)
    expect(emu.requests.map((r) => [r.status, r.body, r.rawBody, r.query])).toEqual([
      [401, { model: 'x' }, '{"model":"x"}', { beta: 'true' }],
      [400, undefined, '{oops', { beta: 'true' }],
      [401, undefined, '', {}],
    ])
    const keyed = await fetch(`${emu.url}/v1/models/%E0%A4%A`, {
      headers: { 'x-api-key': 'k', 'anthropic-version': 'v' },
    })
    expect(keyed.status).toBe(404)
    expect(emu.failures).toEqual([])
    await emu.close()
  })
})
