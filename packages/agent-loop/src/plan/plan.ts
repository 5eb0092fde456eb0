import {
  assertString,
  type ContextkitError,
  describeIssues,
  getModelInfo,
  type Message,
  type ModelInfo,
  type Section,
  type TurnContext,
  textMessage,
  textOf,
} from '@contextkit/core'
import * as z from 'zod'
import { type CallContext, callModel } from '../call/model-call.js'
import { AGENT_TRACE_STAGES } from '../events/trace-stages.js'
import { PlanError } from './errors.js'

/** Options of the plan phase (`runAgent({ plan })`). */
export interface PlanOptions {
  /** System prompt of the plan call. Default {@link PLAN_SYSTEM_PROMPT}. */
  system?: string
  /** Model of the plan call (an id or a core `ModelInfo`). Default: the run's model. */
  model?: string | ModelInfo
  /** `max_tokens` of the plan call. Default `1024` (capped at the model's output limit). */
  maxTokens?: number
}

/** The default system prompt of the plan call. */
export const PLAN_SYSTEM_PROMPT = `Before an agent starts on the request below, decide whether it can go ahead.

Reply with one JSON object and nothing else (no code fence, no prose around it), in one of two forms:
{"action": "proceed", "plan": "<numbered steps>"}
{"action": "clarify", "question": "<one question for the user>", "context": "<why the answer matters>"}

A plan names the files or sources to read, in what order, and what to change or produce, one numbered step per line. Prefer a plan that reads everything it needs first and then acts, and use any file contents already given instead of planning to read them again.

Ask to clarify only when the request is genuinely ambiguous (it could mean clearly different things, or refers to something that is not there); otherwise proceed with your best reading.`

/** The answer the plan call must give. */
export const PlanAnswerSchema = z.discriminatedUnion('action', [
  z.object({ action: z.literal('proceed'), plan: z.string().trim().min(1) }),
  z.object({
    action: z.literal('clarify'),
    question: z.string().trim().min(1),
    context: z.string().default(''),
  }),
])
/** A parsed plan answer. */
export type PlanAnswer = z.infer<typeof PlanAnswerSchema>

/** Id of the user section that carries the plan. */
export const PLAN_SECTION_ID = 'plan'

/**
 * Read the plan call's reply: the JSON object in it (a code fence or text around it is
 * tolerated), checked with {@link PlanAnswerSchema}. Returns the answer, or what was wrong.
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
  const parsed = PlanAnswerSchema.safeParse(value)
  if (parsed.success) return { answer: parsed.data }
  return { problem: `the JSON has the wrong shape (${describeIssues(parsed.error.issues, 3)})` }
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

/**
 * The plan phase: one call (no tools, no prefill) that must answer {@link PlanAnswerSchema}; an
 * unusable answer gets one repair request; a second one becomes a warning and the run goes on
 * without a plan. Its replies are not part of the conversation (never finalized or saved).
 */
export async function runPlanPhase(
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
