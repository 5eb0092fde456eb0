import type { TurnContext } from '@contextkit/core'
import type { CallContext, CallResult, CallSpec } from '../call/call-types.js'
import { callModel } from '../call/model-call.js'
import type { Compactor } from '../compaction/compactor.js'
import { withCacheHitRate } from '../events/events.js'
import type { RunRecord } from '../events/run-record.js'
import { AGENT_TRACE_STAGES } from '../events/trace-stages.js'
import type { ToolChoice } from '../provider/tool-choice.js'
import { refuseNotOffered, type StepControl, withChoice } from './step-control.js'

/** What a step's model call needs from its run beyond the {@link CallContext}. */
export interface StepCallInput {
  ctx: CallContext
  record: RunRecord
  /** `prepareStep` (the option's and the middleware's); none when nothing prepares steps. */
  control: StepControl | undefined
  /** Keeps requests inside the window; none when compaction is off. */
  compactor: Compactor | undefined
  maxTokens: number
  toolChoice: ToolChoice | undefined
}

/**
 * The turn a step starts from: the prepared turn's prefill opens the first step's reply only
 * (later steps continue from tool results), so from step 2 on it is left out; a `prepareStep`
 * that sets `turn.prefill` again opens that step's reply with it (prefill's `steps: 'every'`).
 */
function stepBase(turn: TurnContext, step: number): TurnContext {
  if (step === 1 || turn.prefill === undefined) return turn
  const { prefill: _first, ...rest } = turn
  return rest
}

/**
 * One step's model call, with its `step-start` and `usage` events and its trace record; `next`
 * is the turn later steps start from (the prepared one, or the one a `recover` hook gave).
 * A step's own changes (`prepareStep`) last for its call only.
 */
export async function callStep(
  input: StepCallInput,
  turn: TurnContext,
  step: number,
): Promise<{ result: CallResult; next: TurnContext }> {
  const { ctx, record, control, compactor } = input
  ctx.emit({ type: 'step-start', step, phase: 'agent' })
  const base = stepBase(turn, step)
  const setup = control
    ? await control.setup(base, record.sent, step, record.usage, ctx.run)
    : undefined
  const spec: CallSpec = {
    turn: setup ? setup.turn : base,
    extra: setup ? setup.extra : record.sent,
    opensReply: true,
    maxTokens: input.maxTokens,
    step,
    phase: 'agent',
    ...(setup ? withChoice(setup.toolChoice) : withChoice(input.toolChoice)),
  }
  const result =
    compactor && !setup?.ownMessages ? await compactor.call(ctx, spec) : await callModel(ctx, spec)
  if (setup?.offered && result.kind === 'done') refuseNotOffered(result, setup.offered)
  record.steps++
  const usage = withCacheHitRate(result.reply.usage, record.pricing)
  const total = withCacheHitRate(record.usage, record.pricing)
  ctx.emit({ type: 'usage', step, usage, total })
  ctx.run.trace.record(AGENT_TRACE_STAGES.reply, {
    step,
    stopReason: result.reply.stopReason,
    blocks: result.reply.content.map((b) => b.type),
    toolCalls: result.reply.content.flatMap((b) => (b.type === 'tool_call' ? [b.name] : [])),
    usage,
  })
  // a recovered turn replaces the run's
  return { result, next: setup && !result.recovered ? turn : result.turn }
}
