import { ContextkitError, describeError } from './errors.js'
import type { AssistantMessage, Message, ToolDefinition } from './messages.js'
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
  tools: ToolDefinition[]
  /**
   * Extended thinking for this call. When enabled, the API forbids an assistant prefill, so
   * middleware that adds one must fall back (see @contextkit/prefill). Default: off.
   */
  thinking?: { enabled: boolean; budgetTokens?: number }
  /** Data for tools and sandboxes (e.g. `contextMeta`). */
  vars: Record<string, unknown>
  /** What budget fitting dropped or shortened, and why. */
  omitted: Omission[]
}

/** Facts about the run a turn belongs to. */
export interface RunInfo {
  runId: string
  sessionId?: string
  /** Agent workspace directory, when there is one. */
  workspace?: string
  /** Where middleware records events and warnings. */
  trace: Trace
  /** Aborts the run. */
  signal?: AbortSignal
}

/**
 * A unit of context assembly. `prepare` shapes the turn before the model call (in order);
 * `finalize` shapes the reply after it (in reverse order) — also when the run was aborted or
 * failed, where `reply.stopReason` is `aborted` or `error`.
 */
export interface ContextMiddleware {
  name: string
  prepare?(turn: TurnContext, run: RunInfo): TurnContext | Promise<TurnContext>
  finalize?(
    reply: AssistantMessage,
    turn: TurnContext,
    run: RunInfo,
  ): AssistantMessage | Promise<AssistantMessage>
}

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

/** Build a {@link RunInfo}; the trace defaults to {@link noopTrace}, the id to a random UUID. */
export function createRunInfo(init: Partial<RunInfo> = {}): RunInfo {
  return { runId: init.runId ?? `run_${randomId()}`, trace: noopTrace, ...init }
}

/**
 * Record a warning in the run's trace (`stage: 'warning'`): what failed, its code, and that the
 * feature turned itself off for this call.
 */
export function recordWarning(run: RunInfo, source: string, error: unknown): void {
  run.trace.record('warning', {
    source,
    code: ContextkitError.isInstance(error) ? error.code : 'unexpected',
    message: describeError(error),
  })
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
 * Run every `finalize` in reverse order, each on the previous one's result. Recoverable
 * {@link ContextkitError}s become warnings, as in {@link runPrepare}.
 */
export async function runFinalize(
  middleware: readonly ContextMiddleware[],
  reply: AssistantMessage,
  turn: TurnContext,
  run: RunInfo,
): Promise<AssistantMessage> {
  let current = reply
  for (let i = middleware.length - 1; i >= 0; i--) {
    const m = middleware[i]!
    if (!m.finalize) continue
    try {
      current = await m.finalize(current, turn, run)
    } catch (error) {
      if (!isRecoverable(error)) throw error
      recordWarning(run, `${m.name}.finalize`, error)
    }
  }
  return current
}

function isRecoverable(error: unknown): boolean {
  return ContextkitError.isInstance(error) && error.recoverable
}
