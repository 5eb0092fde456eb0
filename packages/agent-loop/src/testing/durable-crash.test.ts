// Durable runs under SIGKILL on a JSONL session: real child processes, the real SDK, testkit's
// emulator over 127.0.0.1 (see durableCrashMatrix for the scenario and what is checked).
import { execFile, spawn } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { jsonlSessionStore } from '@contextkit/store-files'
import { startAnthropicEmulator } from '@contextkit/testkit'
import { build } from 'esbuild'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { bundleFixture, tempDir } from '../../../../test-utils/temp-dir.js'
import { DURABLE_STATES, durableCrashMatrix } from './durable-matrix.js'
import { DURABLE_CALLS, durableScript } from './durable-worker.js'

// The matrix's default (20: 4 trials of 6 kills, 16 aimed, 8 random): see durableCrashMatrix.
const KILLS = Number(process.env.DURABLE_CRASH_KILLS ?? 20)

let work: Awaited<ReturnType<typeof tempDir>>
let child: string
let emulator: Awaited<ReturnType<typeof startAnthropicEmulator>>

beforeAll(async () => {
  work = await tempDir('durable')
  child = await bundleFixture(
    new URL('./durable-child.fixture.ts', import.meta.url),
    work.dir,
    build,
  )
  emulator = await startAnthropicEmulator({ script: durableScript })
}, 60_000)
afterAll(async () => {
  await emulator.close()
  await work.cleanup()
})

describe('durable runs under SIGKILL (real child processes, JSONL)', () => {
  test(`every run ends whole after ${KILLS}+ kills, aimed at each state and at random instants`, async () => {
    const dir = join(work.dir, 'sessions')
    const { trials, kills, randomKills, landed } = await durableCrashMatrix({
      kills: KILLS,
      baseURL: emulator.url,
      workDir: join(work.dir, 'effects'),
      startWorker: (args) =>
        spawn(process.execPath, [child, JSON.stringify({ ...args, dir })], {
          stdio: ['ignore', 'pipe', 'pipe'],
        }),
      load: async (id) => (await jsonlSessionStore(dir).load(id)).entries,
      requests: () => emulator.requests.map((r) => r.body),
    })
    expect(kills).toBeGreaterThanOrEqual(KILLS)
    for (const state of DURABLE_STATES) expect(landed[state]).toBeGreaterThanOrEqual(2)
    console.info(
      `durable crash matrix (JSONL): ${trials} trials, ${kills} kills (${randomKills} at random), every run whole; kills left the log: ${JSON.stringify(landed)}`,
    )
  }, 600_000)
})

test('a run paused in one process is approved and finished by another', async () => {
  const dir = join(work.dir, 'two-process')
  const effectsDir = join(dir, 'effects')
  mkdirSync(effectsDir, { recursive: true })
  const worker = async (args: Record<string, unknown>) => {
    const base = { sessionId: 'two', effectsDir, baseURL: emulator.url, dir }
    const { stdout } = await promisify(execFile)(process.execPath, [
      child,
      JSON.stringify({ ...base, ...args }),
    ])
    return JSON.parse(stdout.split('\n').find((l) => l.startsWith('{')) ?? '{}')
  }
  const first = await worker({ mode: 'run' })
  expect(first).toMatchObject({ stopReason: 'awaiting_approval' })
  expect(first.pending).toMatchObject([{ toolCallId: DURABLE_CALLS.write, tool: 'write' }])
  const approvals = { [DURABLE_CALLS.write]: { approve: true } }
  expect(await worker({ mode: 'approve', approvals })).toMatchObject({ stopReason: 'end_turn' })
  const { entries } = await jsonlSessionStore(dir).load('two')
  const statuses = entries.flatMap((e) => (e.type === 'approval' ? [e.status] : []))
  expect(statuses).toEqual(['requested', 'approved'])
}, 60_000)
