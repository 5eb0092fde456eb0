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
  type KillPlan,
  type KillStep,
  killPlanOf,
  MIN_TRIALS,
  type TrialState,
  trialSteps,
} from './durable-kill-plan.js'
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
  /**
   * Kills to land at least: trials start while fewer have landed, and each runs its whole plan
   * (six kills, see {@link durableCrashMatrix}); at least 3 trials run. Default `20` (4 trials).
   */
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
  /** Longest wait after `ready` before a random kill, ms. Default `300`. */
  maxKillDelayMs?: number
}

/** What {@link durableCrashMatrix} resolves with. */
export interface DurableCrashMatrixResult {
  /** Trials run (each a run of the scenario, ended whole). */
  trials: number
  /** Workers killed. */
  kills: number
  /** Of them, killed at a random instant (the others were aimed). */
  randomKills: number
  /** Kills by the state they left the log in ({@link DURABLE_STATES}, or `after the answer`). */
  landed: Record<string, number>
}

type Printed = { stopReason: string; pending: Array<{ toolCallId: string }>; error?: string }

const DENY_REASON = 'out.txt is read-only today'

/**
 * The crash matrix of durable runs: trials of the 3-step scenario, each a chain of worker
 * processes SIGKILLed after they start and replaced by one that resumes (approving, or denying
 * every third trial, when asked), until one ends the run. Each trial follows a plan of six
 * kills: four aimed (the worker stops, `pauseAt`, before the run begins, at the first text of a
 * model reply, or inside `lookup`, `send` or the approved `write`, and is killed there) and two at
 * a random instant (mid stream, mid append, before the worker's first write). The aimed kills
 * reach every state a run can be left in ({@link DURABLE_STATES}) by design: every even trial
 * reaches all three and at least 3 trials run, so each state is reached at least twice whatever
 * the machine's speed (at random instants alone, a loaded machine's kills land before the
 * user's message and an idle one's reach it and mid tools about 7 % and 6 % of the time).
 * Checks after each trial: the run reached `end_turn`; the user's message is in the log once;
 * every tool call has exactly one result; no side effect ran twice for one call; a denied call
 * never ran and its reason reached the model. Resolves with the counts and, in `landed`, what
 * state the kills left the log in.
 */
export async function durableCrashMatrix(
  options: DurableCrashMatrixOptions,
): Promise<DurableCrashMatrixResult> {
  checkMatrixOptions(options)
  const target = options.kills ?? 20
  const result: DurableCrashMatrixResult = { trials: 0, kills: 0, randomKills: 0, landed: {} }
  const lane = async (): Promise<void> => {
    // kills count as they land, so a lane starts no trial once the others have reached the target
    while (result.kills < target || result.trials < MIN_TRIALS) {
      await trial(options, result.trials++, result)
    }
  }
  await Promise.all(Array.from({ length: options.lanes ?? 2 }, lane))
  return result
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
  result: DurableCrashMatrixResult,
): Promise<void> {
  const sessionId = `durable-${n}-${Date.now().toString(36)}`
  const effectsDir = join(options.workDir, sessionId)
  mkdirSync(effectsDir, { recursive: true })
  const deny = n % 3 === 0
  const steps = trialSteps(n, deny)
  let approvals: Record<string, ApprovalAnswer> | undefined
  for (let attempt = 0; attempt < 60; attempt++) {
    const entries = await options.load(sessionId)
    // the caller sends the user's message again only while the log does not hold it
    const held = sessionMessages(entries).length > 0
    const plan = nextPlan(steps, { entries, effectsDir, deny }, options)
    const mode = !held ? 'run' : approvals ? 'approve' : 'resume'
    const args = { sessionId, mode, effectsDir, baseURL: options.baseURL } as const
    const printed = await worker(
      options.startWorker({
        ...args,
        ...(approvals ? { approvals } : {}),
        ...(plan?.pauseAt ? { pauseAt: plan.pauseAt } : {}),
      }),
      plan ?? {},
    )
    // a random kill is tried once; an aimed one until it lands (a worker that ends first, as
    // one that stops for approval before the approved `write`, has moved the run on)
    if (plan?.delay !== undefined || printed === 'killed') steps.shift()
    if (printed === 'killed') {
      result.kills++
      if (plan?.delay !== undefined) result.randomKills++
      const where = whereLanded(await options.load(sessionId))
      result.landed[where] = (result.landed[where] ?? 0) + 1
      continue
    }
    if (printed.stopReason === 'end_turn') {
      await check(options, sessionId, effectsDir, deny)
      return
    }
    assert.equal(printed.stopReason, 'awaiting_approval', printed.error)
    const decision: ApprovalAnswer = deny
      ? { approve: false, reason: `${DENY_REASON} (${sessionId})` }
      : { approve: true }
    approvals = Object.fromEntries(printed.pending.map((p) => [p.toolCallId, decision]))
  }
  throw new Error(`trial ${sessionId} did not end in 60 workers`)
}

/** The plan of the next worker: the first step it can still reach (unreachable ones dropped). */
function nextPlan(
  steps: KillStep[],
  state: TrialState,
  options: DurableCrashMatrixOptions,
): KillPlan | undefined {
  while (steps.length > 0) {
    const plan = killPlanOf(steps[0] as KillStep, state, options.maxKillDelayMs ?? 300)
    if (plan) return plan
    steps.shift()
  }
  return undefined
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
