// Durable runs under SIGKILL: real child processes, the real SDK, testkit's emulator over
// 127.0.0.1, a JSONL session on disk. Each trial runs a 3-step conversation (lookup + send, then
// write, which needs approval, then the answer), killing the worker at random instants and
// starting a new one that resumes, until one ends the run.
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdirSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import type { Message, SessionEntry } from '@contextkit/core'
import { type ScriptRequest, startAnthropicEmulator } from '@contextkit/testkit'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { jsonlSessionStore } from './jsonl-store.js'
import { bundleFixture, tempDir } from './test-support.js'

const KILLS = Number(process.env.DURABLE_CRASH_KILLS ?? 200)
const DENY_REASON = 'out.txt is read-only today'

let work: Awaited<ReturnType<typeof tempDir>>
let child: string
let emulator: Awaited<ReturnType<typeof startAnthropicEmulator>>

/** The scripted model: which step a request is, from the replies it already holds. */
function answer(req: ScriptRequest) {
  const replies = req.messages.filter((m) => m.role === 'assistant').length
  const slow = { chunkDelayMs: 1, writeSize: 8 }
  if (replies === 0) {
    return {
      text: 'Looking it up and telling Bob.',
      toolUse: [
        { id: 'toolu_look', name: 'lookup', input: { q: 'x' } },
        { id: 'toolu_send', name: 'send', input: { to: 'bob' } },
      ],
      transport: slow,
    }
  }
  if (replies === 1) {
    return {
      text: 'Writing the file.',
      toolUse: { id: 'toolu_write', name: 'write', input: { path: 'out.txt' } },
      transport: slow,
    }
  }
  return { text: 'All done.', transport: slow }
}

beforeAll(async () => {
  work = await tempDir('durable')
  child = await bundleFixture('durable-child', work.dir)
  emulator = await startAnthropicEmulator({ script: answer })
}, 60_000)
afterAll(async () => {
  await emulator.close()
  await work.cleanup()
})

interface Outcome {
  killed: boolean
  printed?: { stopReason: string; pending: Array<{ toolCallId: string }>; error?: string }
}

/** Start a worker; kill it `killAfterMs` after it is ready (never, when undefined). */
async function worker(args: string[], killAfterMs: number | undefined): Promise<Outcome> {
  const proc: ChildProcess = spawn(process.execPath, [child, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  let err = ''
  proc.stderr?.on('data', (d: Buffer) => {
    err += d.toString()
  })
  const exited = new Promise<string | number | null>((resolve) =>
    proc.once('exit', (code, signal) => resolve(signal ?? code)),
  )
  const ready = new Promise<void>((resolve) => {
    proc.stdout?.on('data', (d: Buffer) => {
      out += d.toString()
      if (out.includes('ready\n')) resolve()
    })
  })
  await Promise.race([ready, exited])
  if (killAfterMs !== undefined) {
    await sleep(killAfterMs)
    proc.kill('SIGKILL')
  }
  const code = await exited
  if (code === 'SIGKILL') return { killed: true }
  const line = out.split('\n').find((l) => l.startsWith('{'))
  if (!line) throw new Error(`worker exited ${code} without a result: ${err}`)
  return { killed: false, printed: JSON.parse(line) }
}

const messagesOf = (entries: readonly SessionEntry[]): Message[] =>
  entries.flatMap((e) => (e.type === 'message' ? [e.message] : []))

/** One trial: workers until one ends the run; returns the kills that landed. */
async function trial(n: number, killBudget: () => boolean): Promise<number> {
  const dir = join(work.dir, 'sessions')
  const id = `t${n}`
  const effects = join(work.dir, 'effects', id)
  mkdirSync(effects, { recursive: true })
  const store = jsonlSessionStore(dir)
  const deny = n % 3 === 0
  let kills = 0
  let approvals: string | undefined
  for (let attempt = 0; attempt < 40; attempt++) {
    const { entries } = await store.load(id)
    // the caller sends the user's message again only while the log does not hold it yet
    const mode = messagesOf(entries).length === 0 ? 'run' : approvals ? 'approve' : 'resume'
    const args = [dir, emulator.url, id, effects, mode, ...(approvals ? [approvals] : [])]
    const kill = killBudget() ? Math.random() * 120 : undefined
    const outcome = await worker(args, kill)
    if (outcome.killed) {
      kills++
      continue
    }
    const printed = outcome.printed!
    if (printed.stopReason === 'end_turn') {
      await check(id, effects, deny)
      return kills
    }
    expect(printed.stopReason, printed.error).toBe('awaiting_approval')
    const decision = deny ? { approve: false, reason: `${DENY_REASON} (${id})` } : { approve: true }
    approvals = JSON.stringify(
      Object.fromEntries(printed.pending.map((p) => [p.toolCallId, decision])),
    )
  }
  throw new Error(`trial ${n} did not finish in 40 workers`)
}

async function check(id: string, effects: string, deny: boolean): Promise<void> {
  const { entries } = await jsonlSessionStore(join(work.dir, 'sessions')).load(id)
  const messages = messagesOf(entries)
  // the user's message is there, once
  const asked = messages.filter((m) => m.role === 'user' && m.content[0]?.type === 'text')
  expect(asked.map((m) => (m.content[0] as { text: string }).text)).toEqual(['Do the task.'])
  // every tool call has exactly one result
  const results = new Map<string, number>()
  for (const m of messages) {
    for (const b of m.content) {
      if (b.type === 'tool_call') results.set(b.id, results.get(b.id) ?? 0)
      if (b.type === 'tool_result') results.set(b.toolCallId, (results.get(b.toolCallId) ?? 0) + 1)
    }
  }
  expect(Object.fromEntries(results)).toEqual({ toolu_look: 1, toolu_send: 1, toolu_write: 1 })
  expect(messages.at(-1)).toMatchObject({ role: 'assistant', stopReason: 'end_turn' })
  // a side effect never ran twice for one call; a denied write never ran
  for (const file of readdirSync(effects)) {
    expect(readFileSync(join(effects, file), 'utf8').trim().split('\n')).toHaveLength(1)
  }
  if (deny) {
    expect(readdirSync(effects)).not.toContain('write-toolu_write')
    // the reason reached the model: a request of this session carried it
    const reason = `${DENY_REASON} (${id})`
    expect(emulator.requests.some((r) => JSON.stringify(r.body).includes(reason))).toBe(true)
  }
}

describe('durable runs under SIGKILL (real child processes, JSONL)', () => {
  test(`every run ends whole after ${KILLS} kills at random instants`, async () => {
    let kills = 0
    let trials = 0
    const budget = () => kills < KILLS && Math.random() < 0.75
    const lane = async (): Promise<void> => {
      while (kills < KILLS) {
        const n = trials++
        kills += await trial(n, budget)
      }
    }
    await Promise.all([lane(), lane()])
    expect(kills).toBeGreaterThanOrEqual(KILLS)
    console.info(`durable crash matrix: ${trials} trials, ${kills} kills, every run ended whole`)
  }, 600_000)
})
