import {
  type AssistantMessage,
  assertObject,
  describeError,
  invalidArgument,
  type Message,
  type ToolCallBlock,
  type Usage,
} from '@contextkit/core'
import { type AgentStopReason, conditionStopReason } from '../events/stop-reasons.js'
import { AgentLoopError } from '../provider/errors.js'

/** What a stop condition sees after each step (a model call plus its tool calls). */
export interface StopState {
  /** Steps of the agent loop so far (model calls with their tools; the plan call not included). */
  readonly steps: number
  /** The reply of the step that just ended, as finalized. */
  readonly lastReply: AssistantMessage
  /** Tool calls of that reply, in call order. */
  readonly lastToolCalls: readonly ToolCallBlock[]
  /** Every tool call of the run so far, in order. */
  readonly toolCalls: readonly ToolCallBlock[]
  /** The new messages of the run so far: earlier steps as saved, this step's as the model sent them. */
  readonly messages: readonly Message[]
  /** Usage summed over every model call of the run. */
  readonly usage: Usage
}

/** A predicate over {@link StopState}: `true` stops the run after the current step. */
export type StopPredicate = (state: StopState) => boolean

/**
 * A stop condition: a predicate, and the `stopReason` the run ends with when it fires (custom
 * functions given to `stopWhen` end it with `'stop_condition'`).
 */
export interface StopCondition {
  /** The `stopReason` of a run this condition ends. */
  readonly stopReason: string
  /** Whether the run ends now, asked after every step. */
  readonly test: StopPredicate
  /** For `maxSteps`: the limit, so the loop knows a step cap is already given. */
  readonly maxSteps?: number
}

/** Stop once `n` steps have run (default `20` when no `maxSteps` is given). */
export function maxSteps(n: number): StopCondition {
  if (!Number.isInteger(n) || n < 1) invalidArgument('maxSteps', 'n', 'a positive integer', n)
  return Object.freeze({
    stopReason: 'max_steps',
    maxSteps: n,
    test: (s: StopState) => s.steps >= n,
  })
}

/**
 * Stop after a reply that called no tool. The loop always stops there anyway (nothing to send
 * back), with the reply's own stop reason; this condition makes it explicit in a list.
 */
export function noToolCalls(): StopCondition {
  return Object.freeze({
    stopReason: 'end_turn',
    test: (s: StopState) => s.lastToolCalls.length === 0,
  })
}

/**
 * Stop after the step in which the model called tool `name` (the call runs and its result is
 * kept): the "final answer" tool pattern.
 */
export function toolCalled(name: string): StopCondition {
  if (typeof name !== 'string' || name === '')
    invalidArgument('toolCalled', 'name', 'a tool name', name)
  return Object.freeze({
    stopReason: 'tool_called',
    test: (s: StopState) => s.lastToolCalls.some((c) => c.name === name),
  })
}

/** Tokens of a usage record: input + output + cache reads + cache writes. */
export function usageTokens(usage: Usage): number {
  assertObject(usage, 'usageTokens', 'usage')
  return usage.input + usage.output + usage.cacheRead + usage.cacheWrite
}

/**
 * Stop once the run has used more than `tokens` tokens in all (input, output, cache reads and
 * writes, summed over every model call).
 */
export function budgetExceeded(tokens: number): StopCondition {
  if (typeof tokens !== 'number' || !(tokens >= 0)) {
    invalidArgument('budgetExceeded', 'tokens', 'a non-negative number', tokens)
  }
  return Object.freeze({
    stopReason: 'budget_exceeded',
    test: (s: StopState) => usageTokens(s.usage) > tokens,
  })
}

/** Anything `stopWhen` accepts: a condition, a custom predicate, or a list of them ("any"). */
export type StopWhen = StopCondition | StopPredicate | ReadonlyArray<StopCondition | StopPredicate>

function asCondition(item: StopCondition | StopPredicate): StopCondition {
  if (typeof item === 'function') return { stopReason: 'stop_condition', test: item }
  if (typeof item === 'object' && item !== null && typeof item.test === 'function') return item
  return invalidArgument('stopWhen', 'stopWhen', 'stop conditions or functions', item)
}

/**
 * The conditions of a run: those given, plus `maxSteps(20)` unless a `maxSteps` is among them, so
 * a run can never go on forever.
 */
export function stopConditions(stopWhen: StopWhen | undefined): StopCondition[] {
  const list =
    stopWhen === undefined ? [] : Array.isArray(stopWhen) ? stopWhen : [stopWhen as StopCondition]
  const conditions = list.map(asCondition)
  if (!conditions.some((c) => c.maxSteps !== undefined)) conditions.push(maxSteps(20))
  return conditions
}

/** The first condition that fires, in order (a throwing custom condition propagates; the loop then stops with `error`). */
export function firstStop(
  conditions: readonly StopCondition[],
  state: StopState,
): StopCondition | undefined {
  return conditions.find((c) => c.test(state))
}

/**
 * The first of `conditions` that fires on `state`, as the run's stop reason; a condition that
 * throws stops the run with `error` and an `AgentLoopError` naming what it threw (the step has
 * ended whole by then).
 */
export function checkStopConditions(
  conditions: readonly StopCondition[],
  state: StopState,
): { stop?: AgentStopReason; failure?: AgentLoopError } {
  try {
    const fired = firstStop(conditions, state)
    return fired ? { stop: conditionStopReason(fired.stopReason) } : {}
  } catch (error) {
    const failure = new AgentLoopError(`A stop condition threw: ${describeError(error)}`, {
      cause: error,
    })
    return { stop: 'error', failure }
  }
}

/**
 * The stop decision after a step's tools: abort first, then the loop guard's verdict, then the
 * stop conditions in order ({@link checkStopConditions}).
 */
export function decideStop(
  signal: AbortSignal,
  verdict: { stop: boolean },
  conditions: readonly StopCondition[],
  state: StopState,
): { stop?: AgentStopReason; failure?: AgentLoopError } {
  if (signal.aborted) return { stop: 'aborted' }
  if (verdict.stop) return { stop: 'loop_detected' }
  return checkStopConditions(conditions, state)
}
