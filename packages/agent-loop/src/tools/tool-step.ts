import type { Message, RunInfo, TextBlock, ToolCallBlock } from '@contextkit/core'
import type { AgentEvent } from '../events/events.js'
import { inTraceScope } from '../events/run-trace.js'
import { AGENT_TRACE_STAGES } from '../events/trace-stages.js'
import type { AgentLoopError } from '../provider/errors.js'
import type { AgentTool } from './define-tool.js'
import { RepeatedToolCallError, ToolInputError } from './errors.js'
import type { LoopGuard, LoopGuardVerdict } from './loop-guard.js'
import { runToolCalls, type ToolOutcome } from './run-tools.js'

/** Inputs of {@link runToolStep}. */
export interface ToolStepInput {
  calls: readonly ToolCallBlock[]
  /** Calls whose JSON input did not parse (id → why). */
  invalidCalls: ReadonlyMap<string, string>
  /** Calls answered with this error instead of running (id → error): denied, interrupted. */
  answered?: ReadonlyMap<string, AgentLoopError>
  guard: LoopGuard | undefined
  tools: ReadonlyMap<string, AgentTool>
  concurrency: number
  signal: AbortSignal
  run: RunInfo
  /** The step the calls belong to. */
  step: number
  emit(event: AgentEvent): void
}

/**
 * The tool half of a step: ask the loop guard, refuse calls whose input did not parse, run the
 * rest (`runToolCalls`), report each outcome as an event and a trace record, and build the user
 * message of results (in call order, plus the guard's nudge when it has one).
 */
export async function runToolStep(
  input: ToolStepInput,
): Promise<{ results: Message; verdict: LoopGuardVerdict }> {
  const { calls } = input
  const verdict: LoopGuardVerdict = input.guard?.check(calls) ?? { refused: new Map(), stop: false }
  refuseAnswered(input, verdict)
  traceGuard(input, verdict)
  const outcomes = await runToolCalls(calls, {
    tools: input.tools,
    signal: input.signal,
    runId: input.run.runId,
    concurrency: input.concurrency,
    refused: verdict.refused,
    onOutcome: (outcome) => reportOutcome(input, outcome),
    around: (call, tool, work) =>
      inTraceScope(
        input.run.trace,
        {
          kind: 'tool',
          step: input.step,
          id: call.id,
          tool: call.name,
          description: tool.description,
          input: call.input,
        },
        work,
      ),
  })
  const nudge: TextBlock[] = verdict.nudge ? [{ type: 'text', text: verdict.nudge }] : []
  return {
    results: { role: 'user', content: [...outcomes.map((x) => x.result), ...nudge] },
    verdict,
  }
}

/**
 * Calls answered already (`answered`: a person's denial, an interrupted call) and calls whose
 * input did not parse are refused with their error, unless the guard refused them first.
 */
function refuseAnswered(input: ToolStepInput, verdict: LoopGuardVerdict): void {
  input.calls.forEach((call, index) => {
    const answer = input.answered?.get(call.id)
    if (answer !== undefined) {
      verdict.refused.set(index, answer)
      return
    }
    const problem = input.invalidCalls.get(call.id)
    if (problem !== undefined && !verdict.refused.has(index)) {
      verdict.refused.set(
        index,
        new ToolInputError(`The input of this call to "${call.name}" was refused: ${problem}`),
      )
    }
  })
}

/** A trace record for each call the loop guard refused as a repeat. */
function traceGuard(input: ToolStepInput, verdict: LoopGuardVerdict): void {
  for (const [index, error] of verdict.refused) {
    if (!RepeatedToolCallError.isInstance(error)) continue
    input.run.trace.record(AGENT_TRACE_STAGES.loopGuard, {
      step: input.step,
      tool: input.calls[index]!.name,
      repeats: error.details.repeats,
      action: verdict.stop ? 'stop' : 'nudge',
    })
  }
}

/** A finished call's `tool-result` event and trace record. */
function reportOutcome(input: ToolStepInput, outcome: ToolOutcome): void {
  const { step, run } = input
  const error = outcome.error ? { error: outcome.error } : {}
  const { call, result, durationMs } = outcome
  input.emit({ type: 'tool-result', step, name: call.name, result, durationMs, ...error })
  run.trace.record(AGENT_TRACE_STAGES.tool, {
    step,
    id: call.id,
    tool: call.name,
    input: call.input,
    isError: result.isError,
    ...(outcome.error ? { code: outcome.error.code, error: outcome.error.message } : {}),
    chars: result.content.reduce((n, b) => n + (b.type === 'text' ? b.text.length : 0), 0),
    durationMs: Math.round(durationMs),
  })
}
