// One run per session at a time across real processes: workers (lease-child.fixture.ts) on one
// JSONL session, the real SDK, testkit's emulator over 127.0.0.1. Without the lease, two such
// runs interleave and fork the parentId chain.
import { type ChildProcess, spawn } from 'node:child_process'
import { join } from 'node:path'
import type { SessionEntry } from '@contextkit/core'
import { jsonlSessionStore } from '@contextkit/store-files'
import { startAnthropicEmulator } from '@contextkit/testkit'
import { build } from 'esbuild'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { bundleFixture, tempDir } from '../../../../test-utils/temp-dir.js'

/** Steps of each worker's run: 14 tool steps, then the answer. */
const STEPS = 15

type Wire = { role: string; content: string | Array<{ type: string; text?: string }> }
const textOf = (m: Wire) =>
  typeof m.content === 'string'
    ? m.content
    : m.content.map((b) => (b.type === 'text' ? (b.text ?? '') : '')).join('')

/**
 * The scripted model: the run's tag is read from the last user message with text (`A: go`), the
 * step from the replies after it; 14 `step` calls, then `<tag> done`.
 */
function stepsScript(request: { messages: Wire[] }) {
  const at = request.messages.findLastIndex((m) => m.role === 'user' && textOf(m).endsWith(': go'))
  const tag = textOf(request.messages[at] as Wire).split(':')[0]
  const replies = request.messages.slice(at + 1).filter((m) => m.role === 'assistant').length
  const transport = { chunkDelayMs: 2, writeSize: 24 }
  if (replies >= STEPS - 1) return { text: `${tag} done`, transport }
  const n = replies + 1
  return { text: `${tag} step ${n}`, toolUse: { name: 'step', input: { n } }, transport }
}

let work: Awaited<ReturnType<typeof tempDir>>
let child: string
let emulator: Awaited<ReturnType<typeof startAnthropicEmulator>>
let n = 0

beforeAll(async () => {
  work = await tempDir('lease-processes')
  child = await bundleFixture(new URL('./lease-child.fixture.ts', import.meta.url), work.dir, build)
  emulator = await startAnthropicEmulator({ script: stepsScript })
}, 60_000)
afterAll(async () => {
  await emulator.close()
  await work.cleanup()
})

type Printed = { stopReason: string; steps: number; code?: string; error?: string }

/** A worker process: its output lines, a wait for a line, and how it ended. */
function worker(args: Record<string, unknown>) {
  const proc: ChildProcess = spawn(process.execPath, [child, JSON.stringify(args)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  let err = ''
  const waiters: Array<() => void> = []
  proc.stdout?.on('data', (d: Buffer) => {
    out += d.toString()
    for (const w of waiters.splice(0)) w()
  })
  proc.stderr?.on('data', (d: Buffer) => {
    err += d.toString()
  })
  const ended = new Promise<Printed | 'killed'>((resolve, reject) => {
    proc.once('exit', (code, signal) => {
      if (signal === 'SIGKILL') return resolve('killed')
      const line = out.split('\n').find((l) => l.startsWith('{'))
      if (!line) return reject(new Error(`worker exited (${code}) without a result: ${err}`))
      resolve(JSON.parse(line) as Printed)
    })
  })
  const waitFor = async (prefix: string): Promise<string> => {
    for (;;) {
      const line = out.split('\n').find((l) => l.startsWith(prefix))
      if (line !== undefined) return line
      await new Promise<void>((resolve) => waiters.push(resolve))
    }
  }
  return { proc, ended, waitFor }
}

/** Wait until the session's log holds `replies` assistant replies (polling its file). */
async function untilReplies(dir: string, id: string, replies: number): Promise<void> {
  for (;;) {
    const { entries } = await jsonlSessionStore(dir).load(id)
    const count = entries.filter((e) => e.type === 'message' && e.message.role === 'assistant')
    if (count.length >= replies) return
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** The log is one chain: each entry's parent is the entry before it (so none has two children). */
function expectOneChain(entries: readonly SessionEntry[]): void {
  const children = new Map<string | null, number>()
  let previous: string | null = null
  for (const e of entries) {
    if (e.type === 'session') continue
    children.set(e.parentId, (children.get(e.parentId) ?? 0) + 1)
    expect(e.parentId, `entry ${e.id} follows the entry before it`).toBe(previous)
    previous = e.id
  }
  expect(Math.max(...children.values()), 'no entry has two children').toBe(1)
}

const replyTexts = (entries: readonly SessionEntry[]) =>
  entries.flatMap((e) =>
    e.type === 'message' && e.message.role === 'assistant'
      ? e.message.content.flatMap((b) => (b.type === 'text' ? [b.text] : []))
      : [],
  )

/** Tool results per call id: every call of the log answered exactly once. */
function expectEveryCallAnsweredOnce(entries: readonly SessionEntry[]): void {
  const results: Record<string, number> = {}
  for (const e of entries) {
    if (e.type !== 'message') continue
    for (const b of e.message.content) {
      if (b.type === 'tool_call') results[b.id] ??= 0
      if (b.type === 'tool_result') results[b.toolCallId] = (results[b.toolCallId] ?? 0) + 1
    }
  }
  expect(Object.values(results).every((c) => c === 1)).toBe(true)
}

describe('one run per session across processes (JSONL)', () => {
  test(`two ${STEPS}-step runs on one session: one chain, the second saw the first; a third with a short sessionWaitMs gets session_busy`, async () => {
    const dir = join(work.dir, `s${n++}`)
    const base = { dir, sessionId: 'shared', baseURL: emulator.url, mode: 'run' }
    const a = worker({ ...base, tag: 'A' })
    await untilReplies(dir, 'shared', 1) // A holds the session
    const b = worker({ ...base, tag: 'B' })
    const c = worker({ ...base, tag: 'C', sessionWaitMs: 200 })
    const [ra, rb, rc] = await Promise.all([a.ended, b.ended, c.ended])
    expect(ra).toMatchObject({ stopReason: 'end_turn', steps: STEPS })
    expect(rb).toMatchObject({ stopReason: 'end_turn', steps: STEPS })
    expect(rc).toMatchObject({ stopReason: 'error', code: 'session_busy' })
    const busy = (rc as Printed).error ?? ''
    expect(busy).toMatch(
      new RegExp(`run run_[AB] \\(host .+, pid (${a.proc.pid}|${b.proc.pid})\\)`),
    )
    const { entries } = await jsonlSessionStore(dir).load('shared')
    expectOneChain(entries)
    const texts = replyTexts(entries)
    expect(texts.indexOf('A done')).toBeLessThan(texts.indexOf('B step 1'))
    expect(texts.filter((t) => t.startsWith('A ')).length).toBe(STEPS)
    expect(texts.filter((t) => t.startsWith('B ')).length).toBe(STEPS)
    expect(JSON.stringify(entries)).not.toContain('C: go')
    // the second run's first request held the first run's whole conversation
    const requests = emulator.requests.map((r) => JSON.stringify(r.body))
    expect(requests.find((r) => r.includes('B: go'))).toContain('A done')
  }, 120_000)

  test('a holder SIGKILLed mid-run: the waiting run takes over and finishes the interrupted run on one chain', async () => {
    const dir = join(work.dir, `s${n++}`)
    const base = { dir, sessionId: 'crash', baseURL: emulator.url }
    const a = worker({ ...base, tag: 'K', mode: 'run' })
    await untilReplies(dir, 'crash', 4)
    const b = worker({ ...base, tag: 'K', mode: 'resume' })
    expect(await b.waitFor('refused ')).toContain('"runId":"run_K"')
    a.proc.kill('SIGKILL')
    expect(await a.ended).toBe('killed')
    expect(await b.ended).toMatchObject({ stopReason: 'end_turn' })
    const { entries } = await jsonlSessionStore(dir).load('crash')
    expectOneChain(entries)
    expectEveryCallAnsweredOnce(entries)
    const texts = replyTexts(entries)
    expect(texts.at(-1)).toBe('K done')
    expect(texts.filter((t) => t.startsWith('K step')).length).toBe(STEPS - 1)
  }, 120_000)
})
