import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { jsonlTrace } from './jsonl-trace.js'
import { textMessage } from './messages.js'
import { digest } from './trace.js'

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ck-trace-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

const clock = () => {
  let t = Date.UTC(2026, 0, 1)
  return () => (t += 1000)
}

describe('jsonlTrace', () => {
  const messages = [
    textMessage('user', 'secret question'),
    textMessage('assistant', 'secret answer'),
  ]

  test('writes one JSON line per event; message lists become roles and digests', async () => {
    const path = join(dir, 'nested', 'trace.jsonl')
    const trace = jsonlTrace(path, { now: clock() })
    trace.record('prefill:injected', { prefill: 'Sure', messages })
    trace.record('done', { last: messages[1], big: 10n })
    const lines = (await readFile(path, 'utf8')).trimEnd().split('\n')
    expect(lines).toHaveLength(2)
    const [first, second] = lines.map((l) => JSON.parse(l))
    expect(first).toEqual({
      ts: '2026-01-01T00:00:01.000Z',
      seq: 0,
      stage: 'prefill:injected',
      data: {
        prefill: 'Sure',
        messages: {
          messages: 2,
          roles: ['user', 'assistant'],
          digests: [digest(messages[0]!.content), digest(messages[1]!.content)],
        },
      },
    })
    expect(second.data).toEqual({
      last: { role: 'assistant', digest: digest(messages[1]!.content) },
      big: '10',
    })
    expect(lines.join('')).not.toContain('secret')
    expect(trace.failures).toBe(0)
  })

  test('full: true records message text as given; circular data does not throw', async () => {
    const path = join(dir, 'full.jsonl')
    const trace = jsonlTrace(path, { full: true })
    const circular: Record<string, unknown> = { messages }
    circular.self = circular
    trace.record('turn', circular)
    const line = JSON.parse(await readFile(path, 'utf8'))
    expect(line.data.messages[0].content[0].text).toBe('secret question')
    expect(line.data.self).toBe('[circular]')
  })

  test('a write that fails is counted, never thrown', async () => {
    const blocker = join(dir, 'file')
    await writeFile(blocker, 'x')
    const trace = jsonlTrace(join(blocker, 'trace.jsonl'))
    expect(() => trace.record('x')).not.toThrow()
    trace.record('y')
    expect(trace.failures).toBe(2)
  })
})
