// The kill plan of durableCrashMatrix's trials: which worker dies, and where.
import { readdirSync } from 'node:fs'
import { type SessionEntry, sessionMessages } from '@contextkit/core'
import { DURABLE_CALLS, type DurablePause } from './durable-worker.js'

/**
 * A step of a trial's kill plan: a kill aimed at a place (`start`: before the run begins,
 * `reply`: at the first text of the next model reply, a tool: inside it, after its side
 * effect), or one at a random instant.
 */
export type KillStep = 'start' | 'reply' | 'lookup' | 'send' | 'write' | 'random'

/**
 * The steps of trial `n` (`deny`: its `write` is denied), consumed in order by its workers; the
 * workers after the last step run undisturbed until the run ends. Every trial opens with an
 * aimed kill before the run begins, so the log is empty ("before the user message"), and one at
 * the model's first text, whose reply is not saved ("awaiting a reply"). An even trial then
 * kills inside a step-1 tool (`send`, not idempotent, or `lookup`): its reply is saved and no
 * tool has a result ("mid tools"), and no random kill came before that could have moved the run
 * past those tools. So each even trial reaches the three states for certain, whatever the
 * machine's speed, and a matrix runs at least {@link MIN_TRIALS} trials. An odd trial puts a
 * random kill on the empty log instead (the user's message mid append, or before it). Later
 * steps aim at the approved `write` (or a reply, when it is denied). Two kills of six are at a
 * random instant (mid stream, mid append, before the worker's first write), four are aimed.
 */
export function trialSteps(n: number, deny: boolean): KillStep[] {
  const firstTool = n % 4 === 0 || n % 4 === 3 ? 'send' : 'lookup'
  const later = deny ? 'reply' : 'write'
  return n % 2 === 0
    ? ['start', 'reply', firstTool, 'random', later, 'random']
    : ['start', 'random', 'reply', firstTool, 'random', later]
}

/** Trials every matrix runs: two of them even, so each state is reached twice by design. */
export const MIN_TRIALS = 3

/** How the next worker dies: killed this many ms after it is ready, or once it stopped here. */
export interface KillPlan {
  delay?: number
  pauseAt?: DurablePause
}

/** What the matrix knows of a trial's run before it starts the next worker. */
export interface TrialState {
  entries: readonly SessionEntry[]
  effectsDir: string
  deny: boolean
}

/**
 * How `step` kills the next worker, or `undefined` when the worker can no longer get there (the
 * step is then skipped): `start` only on an empty log; a tool step at the named tool, else at
 * another that will still run.
 */
export function killPlanOf(
  step: KillStep,
  state: TrialState,
  maxKillDelayMs: number,
): KillPlan | undefined {
  if (step === 'random') return { delay: Math.random() * maxKillDelayMs }
  if (step === 'reply') return { pauseAt: 'reply' }
  if (step === 'start') {
    return sessionMessages(state.entries).length === 0 ? { pauseAt: 'start' } : undefined
  }
  const reachable = toolsToReach(state)
  const pauseAt = reachable.find((tool) => tool === step) ?? reachable[0]
  return pauseAt ? { pauseAt } : undefined
}

/**
 * The tools the next worker will run. A call left without a result by a kill is run again only
 * if idempotent (`lookup`); `send` and `write` are then answered as interrupted. So `send` runs
 * only while the first reply is not saved, `lookup` while it has no result, and `write` when
 * approved (a denied one never runs) and not yet started.
 */
function toolsToReach(state: TrialState): DurablePause[] {
  const messages = sessionMessages(state.entries)
  const replies = messages.filter((m) => m.role === 'assistant').length
  const answered = new Set(
    messages.flatMap((m) =>
      m.content.flatMap((b) => (b.type === 'tool_result' ? [b.toolCallId] : [])),
    ),
  )
  const reachable: DurablePause[] = []
  if (replies === 0) reachable.push('send')
  if (replies <= 1 && !answered.has(DURABLE_CALLS.lookup)) reachable.push('lookup')
  const writeRan = readdirSync(state.effectsDir).includes(`write-${DURABLE_CALLS.write}`)
  if (!state.deny && !writeRan && !answered.has(DURABLE_CALLS.write)) reachable.push('write')
  return reachable
}
