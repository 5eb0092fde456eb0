import type { Message, RunInfo, TextBlock, ToolCallBlock } from '@contextkit/core'
import type { AgentEvent } from '../events/events.js'
import { AGENT_TRACE_STAGES } from '../events/trace-stages.js'
import type { AgentLoopError } from '../provider/errors.js'
import type { AgentTool } from './define-tool.js'
import { RepeatedToolCallError, ToolInputError } from './errors.js'
import type { LoopGuard, LoopGuardVerdict } from './loop-guard.js'
import { runToolCalls } from './run-tools.js'

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
  const { calls, step, run } = input
  const verdict: LoopGuardVerdict = input.guard?.check(calls) ?? { refused: new Map(), stop: false }
  calls.forEach((call, index) => {
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
  for (const [index, error] of verdict.refused) {
    if (!RepeatedToolCallError.isInstance(error)) continue
    run.trace.record(AGENT_TRACE_STAGES.loopGuard, {
      step,
      tool: calls[index]!.name,
      repeats: error.details.repeats,
      action: verdict.stop ? 'stop' : 'nudge',
    })
  }
  const outcomes = await runToolCalls(calls, {
    tools: input.tools,
    signal: input.signal,
    runId: run.runId,
    concurrency: input.concurrency,
    refused: verdict.refused,
    onOutcome: (outcome) => {
      input.emit({
        type: 'tool-result',
        step,
        name: outcome.call.name,
        result: outcome.result,
        durationMs: outcome.durationMs,
        ...(outcome.error ? { error: outcome.error } : {}),
      })
      run.trace.record(AGENT_TRACE_STAGES.tool, {
        step,
        id: outcome.call.id,
        tool: outcome.call.name,
        input: outcome.call.input,
        isError: outcome.result.isError,
        ...(outcome.error ? { code: outcome.error.code } : {}),
        chars: outcome.result.content.reduce(
          (n, b) => n + (b.type === 'text' ? b.text.length : 0),
          0,
        ),
        durationMs: Math.round(outcome.durationMs),
      })
    },
  })
  const nudge: TextBlock[] = verdict.nudge ? [{ type: 'text', text: verdict.nudge }] : []
  return {
    results: { role: 'user', content: [...outcomes.map((x) => x.result), ...nudge] },
    verdict,
  }
}
