import {
  assertObject,
  assertOptions,
  assertString,
  ContextkitError,
  describeError,
  invalidArgument,
} from './errors.js'
import type { AssistantMessage, Message, ToolDefinition } from './message-schemas.js'
import type { ModelInfo } from './models.js'
import { randomId } from './random-id.js'
import type { Omission, Section } from './sections.js'
import { noopTrace, type Trace } from './trace.js'

/** Everything one model call is built from. Middleware returns new values; never mutate one. */
export interface TurnContext {
  /** Id and capabilities of the model the turn is for. */
  model: ModelInfo
  /** System prompt sections, rendered in order (`cache: 'stable'` ones first, by convention). */
  system: Section[]
  /** History plus the current user turn. */
  messages: Message[]
  /** Sections appended to the current user turn. */
  userSections: Section[]
  /** Ephemeral assistant prefill: sent, never persisted. */
  prefill?: string
  /** The tools the request offers. */
  tools: ToolDefinition[]
  /**
   * Extended thinking for this call. When enabled, the API forbids an assistant prefill, so
   * middleware that adds one must fall back (see `@contextkit/prefill`). Default: off.
   */
  thinking?: { enabled: boolean; budgetTokens?: number }
  /** Data for tools and sandboxes (e.g. `contextMeta`). */
  vars: Record<string, unknown>
  /** What budget fitting dropped or shortened, and why. */
  omitted: Omission[]
}

/** Facts about the run a turn belongs to. */
export interface RunInfo {
  /** The run's id, the same in every turn of the run. */
  runId: string
  /** The session the run belongs to, when it has one. */
  sessionId?: string
  /** Agent workspace directory, when there is one. */
  workspace?: string
  /** Where middleware records events and warnings. */
  trace: Trace
  /** Aborts the run. */
  signal?: AbortSignal
  /**
   * Per-run private notes of middleware, keyed by the middleware's `name` (use
   * {@link getRunState} / {@link setRunState}). `turn.vars` stays the data meant for tools and sandboxes; what a middleware
   * remembers between its own `prepare`, `finalize` and `recover` calls of one run goes here.
   */
  readonly state: Map<string, unknown>
}

/** What a loop tells `finalize` about the reply it passes. */
export interface FinalizeInfo {
  /**
   * `true` for a reply that calls no tool (the run ends with it: an answer, an abort or an
   * error); `false` for a reply that calls tools. Such a reply is finalized before its tools run,
   * because a durable loop saves it first, so it is `false` even when a stop condition then ends
   * the run after its tools.
   */
  final: boolean
  /**
   * The step the reply answers, from 1 (a step is one model call plus the tools it asked for;
   * retries keep it).
   */
  step: number
}

/** What a loop tells `prepareStep` about the model call about to be made. */
export interface StepInfo {
  /**
   * The step the call belongs to, from 1 (a step is one model call plus the tools it asked for;
   * the plan call is step 0 and runs no `prepareStep`), as in events, traces, usage and
   * {@link FinalizeInfo.step}.
   */
  step: number
  /** The run's own new messages so far (its replies and tool results), sent after `turn.messages`. */
  newMessages: readonly Message[]
  /** The previous call's reply (`undefined` before the first call). */
  lastReply?: AssistantMessage
}

/**
 * A unit of context assembly. `prepare` shapes the turn before the model call (in order);
 * `finalize` shapes every reply after it (in reverse order) — also when the run was aborted or
 * failed, where `reply.stopReason` is `aborted` or `error`; `info` says whether the reply is the
 * last of the turn, so a middleware that cares only about the final reply decides itself.
 * `recover` is offered a provider error (once per model call and middleware) and may return a
 * turn to retry the call with.
 */
export interface ContextMiddleware {
  /** The middleware's name, in warnings and traces. */
  name: string
  /**
   * Change the turn before the request is built; runs in order, each on the previous one's result.
   */
  prepare?(turn: TurnContext, run: RunInfo): TurnContext | Promise<TurnContext>
  /**
   * Change the turn for one model call: loops that support it (agent-loop does) run every
   * `prepareStep` in order before each call, after the run's `prepare`, on the turn `prepare`
   * gave. What it returns is for that call only: the next call starts again from the prepared
   * turn (keep what must last in `run.state`). Changing `turn.messages` replaces the messages
   * sent before `info.newMessages` for that call.
   */
  prepareStep?(turn: TurnContext, run: RunInfo, info: StepInfo): TurnContext | Promise<TurnContext>
  /**
   * Shape a reply before it is shown or saved. `info` is given by loops that know it (agent-loop
   * always does); treat a missing `info` as "final, step 1".
   */
  finalize?(
    reply: AssistantMessage,
    turn: TurnContext,
    run: RunInfo,
    info?: FinalizeInfo,
  ): AssistantMessage | Promise<AssistantMessage>
  /**
   * The provider failed a request built from `turn`. Return the turn to retry the same model
   * call with (e.g. without the part the provider rejected), or `undefined` to pass. Throw a
   * {@link ContextkitError} to stop the run with that error instead.
   */
  recover?(
    error: unknown,
    turn: TurnContext,
    run: RunInfo,
  ): TurnContext | undefined | Promise<TurnContext | undefined>
}

/** Trace stages core itself records. */
export const CORE_TRACE_STAGES = Object.freeze({
  /** {@link recordWarning}: `{ source, code, message }`. */
  warning: 'warning',
} as const)

/** Build a turn with empty defaults for everything but the model. */
export function createTurnContext(
  init: Pick<TurnContext, 'model'> & Partial<Omit<TurnContext, 'model'>>,
): TurnContext {
  return {
    system: [],
    messages: [],
    userSections: [],
    tools: [],
    vars: {},
    omitted: [],
    ...init,
  }
}

/**
 * Build a {@link RunInfo}; the trace defaults to {@link noopTrace}, the id to a random UUID, the
 * state to an empty map.
 */
export function createRunInfo(init: Partial<RunInfo> = {}): RunInfo {
  assertOptions(init, 'createRunInfo', 'init')
  return {
    runId: init.runId ?? `run_${randomId()}`,
    trace: noopTrace,
    ...init,
    state: init.state ?? new Map<string, unknown>(),
  }
}

/**
 * The per-run notes a middleware keeps under its `name` in `run.state` (`undefined` when none).
 * Notes are plain data the middleware wrote itself; validate them when their shape matters.
 */
export function getRunState(run: RunInfo, name: string): unknown {
  assertObject(run, 'getRunState', 'run')
  assertString(name, 'getRunState', 'name')
  return (run as { state?: Map<string, unknown> }).state?.get(name)
}

/**
 * Replace the per-run notes of the middleware `name` (`undefined` deletes them). A run built
 * without a `state` map (a plain object from an untyped caller) gets one on first write.
 */
export function setRunState(run: RunInfo, name: string, value: unknown): void {
  assertObject(run, 'setRunState', 'run')
  assertString(name, 'setRunState', 'name')
  const holder = run as { state?: Map<string, unknown> }
  holder.state ??= new Map<string, unknown>()
  if (value === undefined) holder.state.delete(name)
  else holder.state.set(name, value)
}

/**
 * Record a warning in the run's trace (`stage: 'warning'`): what failed, its code, and that the
 * feature turned itself off for this call.
 */
export function recordWarning(run: RunInfo, source: string, error: unknown): void {
  assertRun(run, 'recordWarning')
  assertString(source, 'recordWarning', 'source')
  run.trace.record(CORE_TRACE_STAGES.warning, {
    source,
    code: ContextkitError.isInstance(error) ? error.code : 'unexpected',
    message: describeError(error),
  })
}

/** Assert that `run` is a {@link RunInfo} (an object whose `trace` can record). */
function assertRun(run: unknown, fn: string): asserts run is RunInfo {
  assertObject(run, fn, 'run')
  const { trace } = run as { trace?: Partial<Trace> }
  if (typeof trace?.record !== 'function') invalidArgument(fn, 'run.trace', 'a Trace', trace)
}

/** The argument checks the `run*` hooks share. */
function checkRunArguments(fn: string, middleware: unknown, turn: unknown, run: unknown): void {
  if (!Array.isArray(middleware)) invalidArgument(fn, 'middleware', 'an array', middleware)
  assertObject(turn, fn, 'turn')
  assertRun(run, fn)
}

/**
 * Run every `prepare` in order, each on the previous one's result. A middleware that throws a
 * recoverable {@link ContextkitError} is recorded as a warning and skipped (the turn goes on as
 * it was); any other error propagates.
 */
export async function runPrepare(
  middleware: readonly ContextMiddleware[],
  turn: TurnContext,
  run: RunInfo,
): Promise<TurnContext> {
  checkRunArguments('runPrepare', middleware, turn, run)
  let current = turn
  for (const m of middleware) {
    if (!m.prepare) continue
    try {
      current = await m.prepare(current, run)
    } catch (error) {
      if (!isRecoverable(error)) throw error
      recordWarning(run, `${m.name}.prepare`, error)
    }
  }
  return current
}

/**
 * Run every `prepareStep` in order, each on the previous one's result, passing `info` on.
 * Recoverable {@link ContextkitError}s become warnings, as in {@link runPrepare}; a hook that
 * returns something other than an object is a programming error (`InvalidArgumentError`).
 */
export async function runPrepareStep(
  middleware: readonly ContextMiddleware[],
  turn: TurnContext,
  run: RunInfo,
  info: StepInfo,
): Promise<TurnContext> {
  checkRunArguments('runPrepareStep', middleware, turn, run)
  assertObject(info, 'runPrepareStep', 'info')
  let current = turn
  for (const m of middleware) {
    if (!m.prepareStep) continue
    let next: TurnContext
    try {
      next = await m.prepareStep(current, run, info)
    } catch (error) {
      if (!isRecoverable(error)) throw error
      recordWarning(run, `${m.name}.prepareStep`, error)
      continue
    }
    if (typeof next !== 'object' || next === null)
      invalidArgument(`${m.name}.prepareStep`, 'return value', 'a TurnContext', next)
    current = next
  }
  return current
}

/**
 * Run every `finalize` in reverse order, each on the previous one's result, passing `info` on.
 * Recoverable {@link ContextkitError}s become warnings, as in {@link runPrepare}.
 */
export async function runFinalize(
  middleware: readonly ContextMiddleware[],
  reply: AssistantMessage,
  turn: TurnContext,
  run: RunInfo,
  info?: FinalizeInfo,
): Promise<AssistantMessage> {
  checkRunArguments('runFinalize', middleware, turn, run)
  assertObject(reply, 'runFinalize', 'reply')
  assertOptions(info, 'runFinalize', 'info')
  let current = reply
  for (let i = middleware.length - 1; i >= 0; i--) {
    const m = middleware[i]!
    if (!m.finalize) continue
    try {
      current = await m.finalize(current, turn, run, info)
    } catch (error) {
      if (!isRecoverable(error)) throw error
      recordWarning(run, `${m.name}.finalize`, error)
    }
  }
  return current
}

/** What {@link runRecover} found: the turn to retry with, and which middleware gave it. */
export interface Recovery {
  /** The turn to retry with. */
  turn: TurnContext
  /** `name` of the middleware that recovered. */
  by: string
}

/**
 * Offer a provider error to each middleware with a `recover` (in order), skipping the names in
 * `tried` (a loop passes the ones already used for this model call, so each is offered an
 * error once). The first that returns a turn wins. A recoverable {@link ContextkitError} thrown
 * by `recover` becomes a warning and the next middleware is asked; any other error propagates.
 */
export async function runRecover(
  middleware: readonly ContextMiddleware[],
  error: unknown,
  turn: TurnContext,
  run: RunInfo,
  tried: ReadonlySet<string> = new Set(),
): Promise<Recovery | undefined> {
  checkRunArguments('runRecover', middleware, turn, run)
  if (!(tried instanceof Set)) invalidArgument('runRecover', 'tried', 'a Set of names', tried)
  for (const m of middleware) {
    if (!m.recover || tried.has(m.name)) continue
    try {
      const next = await m.recover(error, turn, run)
      if (next !== undefined) return { turn: next, by: m.name }
    } catch (thrown) {
      if (!isRecoverable(thrown)) throw thrown
      recordWarning(run, `${m.name}.recover`, thrown)
    }
  }
  return undefined
}

function isRecoverable(error: unknown): boolean {
  return ContextkitError.isInstance(error) && error.recoverable
}
