import {
  assertString,
  type ContextkitError,
  describeIssues,
  getModelInfo,
  type Message,
  type ModelInfo,
  ModelInfoCheck,
  type Section,
  type TurnContext,
  textMessage,
  textOf,
} from '@contextkit/core'
import * as c from '@contextkit/core/check'
import type { CallContext } from '../call/call-types.js'
import { callModel } from '../call/model-call.js'
import { AGENT_TRACE_STAGES } from '../events/trace-stages.js'
import { type PlanClarification, withUserContext } from './answers.js'
import { PlanError, PlanQuestionError } from './errors.js'

/** What {@link PlanOptions.ask} is given: the plan call's question. */
export interface PlanQuestion {
  /** The question for the user. */
  question: string
  /** Why the answer matters (may be empty). */
  context: string
  /** The questions asked and answered before this one in this run. */
  asked: readonly PlanClarification[]
  /** The run's abort signal: stop waiting for the user when it fires. */
  signal: AbortSignal
}

/** Options of the plan phase (`runAgent({ plan })`). */
export interface PlanOptions {
  /** System prompt of the plan call. Default {@link PLAN_SYSTEM_PROMPT}. */
  system?: string
  /** Model of the plan call (an id or a core `ModelInfo`). Default: the run's model. */
  model?: string | ModelInfo
  /** `max_tokens` of the plan call. Default `1024` (capped at the model's output limit). */
  maxTokens?: number
  /**
   * Asks the user the plan call's question and returns the answer: the run goes on, the answer
   * under `## Additional Context from User` (before the user's text, after the plan), and the
   * plan call is made again with it. `undefined` or blank text ends the run with `'clarify'`, as
   * without `ask`; a throw does too, with a warning. Default: none (a question ends the run).
   */
  ask?: (question: PlanQuestion) => string | undefined | Promise<string | undefined>
  /** Questions `ask` is given at most in one run; one more ends the run with `'clarify'`. Default `3`. */
  maxQuestions?: number
}

/** The check of {@link PlanOptions} (`runAgent` checks `plan` with it). */
export const PlanOptionsCheck = /* @__PURE__ */ c.lazy(() =>
  c.strictObject({
    system: c.optional(c.string({ min: 1 })),
    model: c.optional(c.union(c.string({ min: 1 }), ModelInfoCheck)),
    maxTokens: c.optional(c.number({ int: true, min: 1 })),
    ask: c.optional(
      c.custom<NonNullable<PlanOptions['ask']>>((v) => typeof v === 'function', 'a function', [
        'function',
      ]),
    ),
    maxQuestions: c.optional(c.number({ int: true, min: 0 })),
  }),
)

/** The default system prompt of the plan call. */
export const PLAN_SYSTEM_PROMPT = `Before an agent starts on the request below, decide whether it can go ahead.

Reply with one JSON object and nothing else (no code fence, no prose around it), in one of two forms:
{"action": "proceed", "plan": "<numbered steps>"}
{"action": "clarify", "question": "<one question for the user>", "context": "<why the answer matters>"}

A plan is specific: it names the files or sources to read, in what order, and what to change or produce in each, one numbered step per line. Prefer a plan that reads everything it needs first and then acts, and use any file contents already given (under "Pre-loaded Files") instead of planning to read them again. "Proceed with best judgment" is not a plan. An example of a good one:
{"action": "proceed", "plan": "1. Read src/pages/Tasks.jsx and src/pages/Tasks.css\\n2. Add an assignee input to the new-task form\\n3. Show the assignee on each task card\\n4. Add an AssigneePicker component\\n5. Style the new elements in Tasks.css"}

Ask to clarify only when the request is genuinely ambiguous; otherwise proceed with your best reading. Ask when:
- a vague change ("make it bigger") could apply to any of several things the user pointed at: ask which one;
- a new feature is asked for with no word on what it should do: ask what it should do;
- the request names something that is not in what you were given: ask what is meant.
Proceed when the request is plain (e.g. "make this button red"), and lean toward proceeding.`

/** Text with something in it besides white space. */
const filled = /* @__PURE__ */ c.lazy(() =>
  c.custom<string>((v) => typeof v === 'string' && v.trim() !== '', 'a string with text in it', [
    'string',
  ]),
)

/**
 * The check of the answer the plan call must give (extra keys are let through): a `proceed` with
 * its plan, or a `clarify` with its question and, optionally, why it matters.
 */
export const PlanAnswerCheck = /* @__PURE__ */ c.lazy(() =>
  c.variants('action', {
    proceed: c.object({ action: c.literal('proceed'), plan: filled }),
    clarify: c.object({
      action: c.literal('clarify'),
      question: filled,
      context: c.optional(c.string()),
    }),
  }),
)
/** A parsed plan answer: the texts trimmed, `context` `''` when the model gave none. */
export type PlanAnswer =
  | { action: 'proceed'; plan: string }
  | { action: 'clarify'; question: string; context: string }

/** Id of the user section that carries the plan. */
export const PLAN_SECTION_ID = 'plan'

/**
 * Read the plan call's reply: the JSON object in it (a code fence or text around it is
 * tolerated), checked with {@link PlanAnswerCheck}. Returns the answer, or what was wrong.
 */
export function parsePlanAnswer(text: string): { answer: PlanAnswer } | { problem: string } {
  assertString(text, 'parsePlanAnswer', 'text')
  const start = text.indexOf('{')
  const end = text.lastIndexOf('}')
  if (start < 0 || end < start) return { problem: 'the reply holds no JSON object' }
  let value: unknown
  try {
    value = JSON.parse(text.slice(start, end + 1))
  } catch (error) {
    return {
      problem: `the JSON does not parse (${error instanceof Error ? error.message : String(error)})`,
    }
  }
  const parsed = PlanAnswerCheck.safeParse(value)
  if (!parsed.success)
    return { problem: `the JSON has the wrong shape (${describeIssues(parsed.error.issues, 3)})` }
  const a = parsed.data
  if (a.action === 'proceed') return { answer: { action: 'proceed', plan: a.plan.trim() } }
  return {
    answer: { action: 'clarify', question: a.question.trim(), context: a.context ?? '' },
  }
}

/**
 * The `## Your Plan` user section: put before the user's text in the first user turn of the
 * agent loop (request only; the session keeps what the user wrote).
 */
export function planSection(plan: string): Section {
  assertString(plan, 'planSection', 'plan')
  return {
    id: PLAN_SECTION_ID,
    text: `## Your Plan\n\nFollow this plan:\n${plan.trim()}`,
    priority: 1_000_000,
    cache: 'volatile',
    placement: 'before',
  }
}

function repairMessage(problem: string): Message {
  return textMessage(
    'user',
    `Your reply could not be used: ${problem}. Answer again with only the JSON object, {"action": "proceed", "plan": "..."} or {"action": "clarify", "question": "...", "context": "..."}.`,
  )
}

/** What the plan phase decided. */
export type PlanOutcome =
  | { kind: 'proceed'; plan: string }
  | { kind: 'clarify'; question: string; context: string }
  | { kind: 'none' }
  | { kind: 'aborted' }
  | { kind: 'failed'; error: ContextkitError }

/** What the plan phase decided, how many calls it made, and what the user answered. */
export interface PlanPhaseResult {
  outcome: PlanOutcome
  calls: number
  /** The questions `ask` answered; the run's turn carries them ({@link withUserContext}). */
  answers: PlanClarification[]
}

/**
 * The plan phase: one call (no tools, no prefill) that must answer {@link PlanAnswerCheck}; an
 * unusable answer gets one repair request; a second one becomes a warning and the run goes on
 * without a plan. When the call asks and `options.ask` answers, the answer joins the turn
 * (`## Additional Context from User`) and the call is made again, up to `maxQuestions` times.
 * Its replies are not part of the conversation (never finalized or saved).
 */
export async function runPlanPhase(
  ctx: CallContext,
  prepared: TurnContext,
  options: PlanOptions,
): Promise<PlanPhaseResult> {
  const answers: PlanClarification[] = []
  let calls = 0
  for (;;) {
    const decided = await decide(ctx, withUserContext(prepared, answers), options)
    calls += decided.calls
    const { outcome } = decided
    if (outcome.kind !== 'clarify' || answers.length >= (options.maxQuestions ?? 3)) {
      return { outcome, calls, answers }
    }
    const answer = await askUser(ctx, options, { ...outcome, asked: [...answers] })
    if (answer === undefined) return { outcome, calls, answers }
    answers.push({ question: outcome.question, context: outcome.context, answer })
    ctx.run.trace.record(AGENT_TRACE_STAGES.plan, { action: 'answered', ...answers.at(-1) })
  }
}

/** The user's answer through `options.ask`, or `undefined` (no `ask`, no answer, a throw). */
async function askUser(
  ctx: CallContext,
  options: PlanOptions,
  question: Omit<PlanQuestion, 'signal'>,
): Promise<string | undefined> {
  if (!options.ask || ctx.signal.aborted) return undefined
  try {
    const answer = await options.ask({ ...question, signal: ctx.signal })
    return typeof answer === 'string' && answer.trim() !== '' ? answer : undefined
  } catch (cause) {
    const error = new PlanQuestionError(
      `plan.ask failed, so the question stays unanswered: ${cause instanceof Error ? cause.message : String(cause)}`,
      { recoverable: true, cause },
    )
    ctx.warn({ code: error.code, message: error.message, source: 'plan' })
    return undefined
  }
}

/** One decision of the plan call: its answer, after at most one repair request. */
async function decide(
  ctx: CallContext,
  prepared: TurnContext,
  options: PlanOptions,
): Promise<{ outcome: PlanOutcome; calls: number }> {
  const turn = planTurn(prepared, options)
  const maxTokens = Math.min(options.maxTokens ?? 1024, turn.model.maxOutput)
  const extra: Message[] = []
  let problem = ''
  for (let attempt = 0; attempt < 2; attempt++) {
    ctx.emit({ type: 'step-start', step: 0, phase: 'plan' })
    const spec = { turn, extra, opensReply: false, maxTokens, step: 0, phase: 'plan' as const }
    const result = await callModel(ctx, spec)
    ctx.emit({ type: 'step-end', step: 0, phase: 'plan', message: result.reply })
    if (result.kind === 'aborted') return { outcome: { kind: 'aborted' }, calls: attempt + 1 }
    if (result.kind === 'failed')
      return { outcome: { kind: 'failed', error: result.error }, calls: attempt + 1 }
    const parsed = parsePlanAnswer(textOf(result.reply))
    if ('answer' in parsed) {
      ctx.run.trace.record(AGENT_TRACE_STAGES.plan, { ...parsed.answer, repaired: attempt > 0 })
      return { outcome: outcomeOf(parsed.answer), calls: attempt + 1 }
    }
    problem = parsed.problem
    extra.push(
      result.reply.content.length > 0 ? result.reply : textMessage('assistant', '(no answer)'),
      repairMessage(problem),
    )
  }
  const error = new PlanError(
    `The plan call gave no usable answer twice (${problem}); going on without a plan.`,
    { recoverable: true },
  )
  ctx.warn({ code: error.code, message: error.message, source: 'plan' })
  ctx.run.trace.record(AGENT_TRACE_STAGES.plan, { action: 'none', problem })
  return { outcome: { kind: 'none' }, calls: 2 }
}

/** The plan call's turn: the prepared one on the plan's model, no tools, prefill or thinking. */
function planTurn(prepared: TurnContext, options: PlanOptions): TurnContext {
  const model =
    options.model === undefined
      ? prepared.model
      : typeof options.model === 'string'
        ? getModelInfo(options.model)
        : options.model
  const { prefill: _prefill, thinking: _thinking, ...rest } = prepared
  const text = options.system ?? PLAN_SYSTEM_PROMPT
  return {
    ...rest,
    model,
    tools: [],
    system: [{ id: 'plan-phase', text, priority: 1_000_000, cache: 'stable' }],
  }
}

/** A valid answer as the phase's outcome. */
function outcomeOf(answer: PlanAnswer): PlanOutcome {
  return answer.action === 'proceed'
    ? { kind: 'proceed', plan: answer.plan }
    : { kind: 'clarify', question: answer.question, context: answer.context }
}
