import assert from 'node:assert/strict'
import type { ChildProcess } from 'node:child_process'
import { mkdirSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import {
  assertObject,
  assertString,
  invalidArgument,
  type SessionEntry,
  type SessionStore,
  sessionMessages,
} from '@contextkit/core'
import type { ApprovalAnswer } from '../run/option-checks.js'
import { runStateOf } from '../session/run-state.js'
import {
  DURABLE_CALLS,
  DURABLE_USER_MESSAGE,
  type DurablePause,
  durableWorker,
} from './durable-worker.js'

/** What one worker process is told (as one JSON argument). */
export interface DurableWorkerArgs {
  /** The session the worker runs on. */
  sessionId: string
  /** `run` sends the user's message; `resume` resumes; `approve` resumes with `approvals`. */
  mode: 'run' | 'resume' | 'approve'
  /** The decisions, by tool call id (mode `approve`). */
  approvals?: Record<string, ApprovalAnswer>
  /** Where the side-effect files go. */
  effectsDir: string
  /** The emulator's URL. */
  baseURL: string
  /** Where the worker stops (printing `paused <where>`) so that the kill lands there. */
  pauseAt?: DurablePause
}

/**
 * The body of a worker process: reads its {@link DurableWorkerArgs} from `argv[2]`, prints
 * `ready`, runs {@link durableWorker} on the store `makeStore` gives, prints its result as one
 * JSON line, and exits.
 */
export async function durableWorkerProcess(makeStore: () => SessionStore): Promise<void> {
  if (typeof makeStore !== 'function') {
    invalidArgument(
      'durableWorkerProcess',
      'makeStore',
      'a function returning a SessionStore',
      makeStore,
    )
  }
  const args = JSON.parse(process.argv[2] ?? '{}') as DurableWorkerArgs
  process.stdout.write('ready\n')
  const outcome = await durableWorker({ ...args, store: makeStore() })
  process.stdout.write(`${JSON.stringify(outcome)}\n`)
}

/** Options of {@link durableCrashMatrix}. */
export interface DurableCrashMatrixOptions {
  /** Kills to land in all (workers killed before they ended). Default `60`. */
  kills?: number
  /** Trials run at the same time. Default `2`. */
  lanes?: number
  /** The emulator's URL; its script must be {@link durableScript}. */
  baseURL: string
  /** Start a worker process running {@link durableWorkerProcess} with `JSON.stringify(args)`. */
  startWorker(args: DurableWorkerArgs): ChildProcess
  /** The store's entries of a session (read in the test process). */
  load(sessionId: string): Promise<SessionEntry[]>
  /** Bodies of the requests the emulator received so far. */
  requests(): readonly unknown[]
  /** A directory for the side-effect files. */
  workDir: string
  /** Longest wait after `ready` before a kill, ms. Default `300`. */
  maxKillDelayMs?: number
}

type Printed = { stopReason: string; pending: Array<{ toolCallId: string }>; error?: string }

const DENY_REASON = 'out.txt is read-only today'

/**
 * The crash matrix of durable runs: trials of the 3-step scenario, each a chain of worker
 * processes SIGKILLed after they start and replaced by one that resumes (approving, or denying
 * every third trial, when asked), until one ends the run. Two of every three kills land at a
 * random instant (mid stream, mid append, before the first write); every third is aimed: the
 * worker stops (`pauseAt`) inside a tool or at the first text of the model's reply and is killed
 * there, and a quarter of the trials kill their first worker before the run starts, so every
 * state a run can be left in is reached whatever the machine's speed (at random, under load,
 * kills land before the user's message; idle, before the user's message and mid tools are about
 * 7 % and 6 % each).
 * Checks after each trial: the run reached `end_turn`; the user's message is in the log once; every
 * tool call has exactly one result; no side effect ran twice for one call; a denied call never
 * ran and its reason reached the model. Resolves with the counts and, in `landed`, what state
 * the kills left the log in.
 */
export async function durableCrashMatrix(
  options: DurableCrashMatrixOptions,
): Promise<{ trials: number; kills: number; landed: Record<string, number> }> {
  checkMatrixOptions(options)
  const target = options.kills ?? 60
  let kills = 0
  let trials = 0
  const landed: Record<string, number> = {}
  const lane = async (): Promise<void> => {
    while (kills < target) {
      const n = trials++
      const landedHere = await trial(options, n, () => kills < target, landed)
      kills += landedHere
    }
  }
  await Promise.all(Array.from({ length: options.lanes ?? 2 }, lane))
  return { trials, kills, landed }
}

function checkMatrixOptions(options: DurableCrashMatrixOptions): void {
  const fn = 'durableCrashMatrix'
  assertObject(options, fn, 'options')
  assertString(options.baseURL, fn, 'options.baseURL')
  assertString(options.workDir, fn, 'options.workDir')
  for (const name of ['startWorker', 'load', 'requests'] as const) {
    if (typeof options[name] !== 'function')
      invalidArgument(fn, `options.${name}`, 'a function', options[name])
  }
  for (const name of ['kills', 'lanes', 'maxKillDelayMs'] as const) {
    const value = options[name]
    if (value !== undefined && !(Number.isSafeInteger(value) && value > 0)) {
      invalidArgument(fn, `options.${name}`, 'a positive integer or undefined', value)
    }
  }
}

/**
 * The states a kill can leave a run's log in that the matrix must reach (the keys of its
 * `landed`): nothing saved yet, the model's reply not saved, tool calls without all results.
 */
export const DURABLE_STATES = Object.freeze([
  'before the user message',
  'awaiting a reply',
  'mid tools',
] as const)

/** Where a kill left the log: nothing saved, or the state of its last run. */
function whereLanded(entries: readonly SessionEntry[]): string {
  if (sessionMessages(entries).length === 0) return 'before the user message'
  const state = runStateOf(entries)
  if (state.kind === 'tools') return 'mid tools'
  return state.kind === 'reply' ? 'awaiting a reply' : 'after the answer'
}

async function trial(
  options: DurableCrashMatrixOptions,
  n: number,
  mayKill: () => boolean,
  landed: Record<string, number>,
): Promise<number> {
  const sessionId = `durable-${n}-${Date.now().toString(36)}`
  const effectsDir = join(options.workDir, sessionId)
  mkdirSync(effectsDir, { recursive: true })
  const deny = n % 3 === 0
  let kills = 0
  let approvals: Record<string, ApprovalAnswer> | undefined
  for (let attempt = 0; attempt < 60; attempt++) {
    // the caller sends the user's message again only while the log does not hold it
    const held = sessionMessages(await options.load(sessionId)).length > 0
    const plan = killPlan(
      mayKill(),
      { n, attempt, held, approved: approvals !== undefined },
      options,
    )
    const mode = !held ? 'run' : approvals ? 'approve' : 'resume'
    const args = { sessionId, mode, effectsDir, baseURL: options.baseURL } as const
    const printed = await worker(
      options.startWorker({
        ...args,
        ...(approvals ? { approvals } : {}),
        ...(plan.pauseAt ? { pauseAt: plan.pauseAt } : {}),
      }),
      plan,
    )
    if (printed === 'killed') {
      kills++
      const where = whereLanded(await options.load(sessionId))
      landed[where] = (landed[where] ?? 0) + 1
      continue
    }
    if (printed.stopReason === 'end_turn') {
      await check(options, sessionId, effectsDir, deny)
      return kills
    }
    assert.equal(printed.stopReason, 'awaiting_approval', printed.error)
    const decision: ApprovalAnswer = deny
      ? { approve: false, reason: `${DENY_REASON} (${sessionId})` }
      : { approve: true }
    approvals = Object.fromEntries(printed.pending.map((p) => [p.toolCallId, decision]))
  }
  throw new Error(`trial ${sessionId} did not end in 60 workers`)
}

interface KillPlan {
  /** Kill this many ms after the worker is ready. */
  delay?: number
  /** Or kill once it has stopped here. */
  pauseAt?: DurablePause
}

/**
 * How a worker dies, if it does. A quarter of the trials stop their first worker before the run
 * starts and kill it there (the log is still empty: the only sure way to reach "before the user
 * message" on a slow machine). Otherwise three in four attempts are killed (the last one lets the
 * run end); of those every third stops at a chosen place and is killed there (the approved
 * `write`, else in turn `lookup`, the model's reply or `send`), the others at a random instant.
 */
function killPlan(
  mayKill: boolean,
  at: { n: number; attempt: number; held: boolean; approved: boolean },
  options: DurableCrashMatrixOptions,
): KillPlan {
  if (!mayKill) return {}
  if (!at.held && at.attempt === 0 && at.n % 4 === 1) return { pauseAt: 'start' }
  if (Math.random() >= 0.75) return {}
  const aimed = ['lookup', 'reply', 'send'] as const
  const k = at.n + at.attempt
  if (k % 3 === 2) return { pauseAt: at.approved ? 'write' : aimed[Math.floor(k / 3) % 3] }
  return { delay: Math.random() * (options.maxKillDelayMs ?? 300) }
}

/** Wait for the worker; kill it as `plan` says (a worker that ends first is not killed). */
async function worker(proc: ChildProcess, plan: KillPlan): Promise<Printed | 'killed'> {
  let out = ''
  let err = ''
  proc.stderr?.on('data', (d: Buffer) => {
    err += d.toString()
  })
  const exited = new Promise<string | number | null>((resolve) =>
    proc.once('exit', (code, signal) => resolve(signal ?? code)),
  )
  const waitFor = (line: string) =>
    new Promise<void>((resolve) => {
      const look = (): void => {
        if (!out.includes(line)) return
        proc.stdout?.off('data', look)
        resolve()
      }
      proc.stdout?.on('data', look)
      look()
    })
  proc.stdout?.on('data', (d: Buffer) => {
    out += d.toString()
  })
  await Promise.race([waitFor('ready\n'), exited])
  if (plan.pauseAt) {
    // a worker that never reaches the tool ends by itself and is not killed
    await Promise.race([waitFor(`paused ${plan.pauseAt}\n`), exited])
    proc.kill('SIGKILL')
  } else if (plan.delay !== undefined) {
    await sleep(plan.delay)
    proc.kill('SIGKILL')
  }
  const code = await exited
  if (code === 'SIGKILL') return 'killed'
  const line = out.split('\n').find((l) => l.startsWith('{'))
  if (!line) throw new Error(`a worker exited (${code}) without a result: ${err}`)
  return JSON.parse(line) as Printed
}

async function check(
  options: DurableCrashMatrixOptions,
  sessionId: string,
  effectsDir: string,
  deny: boolean,
): Promise<void> {
  const messages = sessionMessages(await options.load(sessionId))
  const asked = messages.flatMap((m) =>
    m.role === 'user' && m.content[0]?.type === 'text' ? [m.content[0].text] : [],
  )
  assert.deepEqual(asked, [DURABLE_USER_MESSAGE], "the user's message is in the log, once")
  const results: Record<string, number> = {}
  for (const m of messages) {
    for (const b of m.content) {
      if (b.type === 'tool_call') results[b.id] ??= 0
      if (b.type === 'tool_result') results[b.toolCallId] = (results[b.toolCallId] ?? 0) + 1
    }
  }
  const once = Object.fromEntries(Object.values(DURABLE_CALLS).map((id) => [id, 1]))
  assert.deepEqual(results, once, `${sessionId}: every tool call has exactly one result`)
  assert.equal(messages.at(-1)?.role, 'assistant', `${sessionId}: the log ends with the answer`)
  for (const file of readdirSync(effectsDir)) {
    const runs = readFileSync(join(effectsDir, file), 'utf8').trim().split('\n').length
    assert.equal(runs, 1, `${sessionId}: ${file} ran ${runs} times`)
  }
  if (!deny) return
  assert.ok(
    !readdirSync(effectsDir).includes(`write-${DURABLE_CALLS.write}`),
    'a denied call never runs',
  )
  const reason = `${DENY_REASON} (${sessionId})`
  const seen = options.requests().some((body) => JSON.stringify(body).includes(reason))
  assert.ok(seen, `${sessionId}: the denial's reason reached the model`)
}
