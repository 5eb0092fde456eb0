import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises'
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

  test('a planted symlinked .contextkit/ is refused under root: 0 bytes written outside', async () => {
    const workspace = join(dir, 'ws')
    const outside = join(dir, 'outside')
    await mkdir(workspace)
    await mkdir(outside)
    await symlink(outside, join(workspace, '.contextkit'))
    const trace = jsonlTrace(join(workspace, '.contextkit', 'traces', 't.jsonl'), {
      root: workspace,
    })
    trace.record('a', { x: 1 })
    trace.record('b')
    expect(trace.failures).toBe(2)
    expect(await readdir(outside)).toEqual([])
    expect(() => jsonlTrace(join(dir, 'elsewhere.jsonl'), { root: workspace })).toThrow(
      /options.root/,
    )
  })

  test('after a torn last line the next event starts on a fresh, readable line', async () => {
    const path = join(dir, 'torn.jsonl')
    await writeFile(path, '{"ts":"x","seq":0,"stage":"cut-off","da')
    const trace = jsonlTrace(path, { now: clock() })
    trace.record('next', { ok: true })
    const lines = (await readFile(path, 'utf8')).split('\n')
    expect(lines).toHaveLength(3)
    expect(JSON.parse(lines[1]!)).toMatchObject({ stage: 'next', data: { ok: true } })
  })

  test('record never throws: undefined content, 10k-deep data, throwing toJSON, cycles', async () => {
    let deep: Record<string, unknown> = { leaf: true }
    for (let i = 0; i < 10_000; i++) deep = { deep }
    const hostile = {
      toJSON() {
        throw new Error('no')
      },
    }
    const getter = Object.defineProperty({}, 'boom', {
      enumerable: true,
      get() {
        throw new Error('getter')
      },
    })
    const cyc: Record<string, unknown> = {}
    cyc.cyc = cyc
    for (const full of [false, true]) {
      const path = join(dir, `never-${full}.jsonl`)
      const trace = jsonlTrace(path, { full })
      const inputs: unknown[] = [
        { messages: [{ role: 'user', content: undefined }] },
        { message: { role: 'user', content: deep } },
        { deep },
        { hostile, getter, cyc },
        { list: [deep, hostile] },
      ]
      for (const data of inputs) {
        expect(() => trace.record('x', data as Record<string, unknown>)).not.toThrow()
      }
      const lines = (await readFile(path, 'utf8')).trimEnd().split('\n')
      expect(lines).toHaveLength(inputs.length)
      for (const line of lines) expect(() => JSON.parse(line)).not.toThrow()
      expect(trace.failures).toBe(0)
      if (full) {
        expect(trace.dropped).toBeGreaterThanOrEqual(4)
        expect(JSON.parse(lines[3]!).data).toEqual({
          hostile: '[unserializable: no]',
          getter: { boom: '[unserializable: getter]' },
          cyc: { cyc: '[circular]' },
        })
      }
    }
  })

  test('an object referenced twice (no cycle) is written twice, not as "[circular]"', async () => {
    const path = join(dir, 'shared.jsonl')
    const trace = jsonlTrace(path, { full: true })
    const shared = { n: 1 }
    trace.record('x', { a: shared, b: shared, list: [shared, shared] })
    const line = JSON.parse(await readFile(path, 'utf8'))
    expect(line.data).toEqual({ a: { n: 1 }, b: { n: 1 }, list: [{ n: 1 }, { n: 1 }] })
    expect(trace.dropped).toBe(0)
  })
})
