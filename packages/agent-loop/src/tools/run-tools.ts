import {
  ABORTED,
  assertArray,
  assertObject,
  describeIssues,
  TIMED_OUT,
  type ToolCallBlock,
  type ToolResultBlock,
  whenAborted,
  within,
} from '@contextkit/core'
import type { AgentLoopError } from '../provider/errors.js'
import { type AgentTool, DEFAULT_TOOL_TIMEOUT_MS, toolOutputContent } from './define-tool.js'
import {
  ToolAbortedError,
  ToolExecutionError,
  ToolInputError,
  ToolOutputError,
  ToolTimeoutError,
  UnknownToolError,
} from './errors.js'

/** How one tool call ended. */
export interface ToolOutcome {
  /** The call as the model made it. */
  call: ToolCallBlock
  /** The result the model sees (`isError: true` for every failure). */
  result: ToolResultBlock
  /** Why the result is an error, typed. */
  error?: AgentLoopError
  /** Wall time of `execute` (0 when it never ran). */
  durationMs: number
}

/** Options of {@link runToolCalls}. */
export interface RunToolCallsOptions {
  /** The run's tools, by name. */
  tools: ReadonlyMap<string, AgentTool>
  /** The run's signal: reaches every running tool; on abort the unfinished calls end at once. */
  signal: AbortSignal
  /** The run's id, passed to every tool. */
  runId: string
  /** Calls running at the same time. `Infinity`: all of them. */
  concurrency: number
  /** Calls answered with this error instead of running (by index): loop guard, bad JSON. */
  refused?: ReadonlyMap<number, AgentLoopError>
  /** Called as each call ends, in the order they end. */
  onOutcome?(outcome: ToolOutcome, index: number): void
  /** Clock for `durationMs`. Default `performance.now`. */
  now?: () => number
  /**
   * Runs one call's `execute` (`work`), given the call and its tool: e.g. inside a trace's scope,
   * so what the tool starts itself is seen inside its call. Must call `work` once and return what
   * it returns. Default: `work()`.
   */
  around?<T>(call: ToolCallBlock, tool: AgentTool, work: () => T): T
}

function errorResult(call: ToolCallBlock, error: AgentLoopError): ToolResultBlock {
  return {
    type: 'tool_result',
    toolCallId: call.id,
    content: [{ type: 'text', text: error.message }],
    isError: true,
  }
}

/**
 * One listener on the run's signal for a whole batch of calls (not one per call, which passes
 * EventTarget's listener warning threshold with more than ten parallel calls): on abort it fires
 * every running tool's own signal and resolves `aborted`.
 */
interface BatchAbort {
  aborted: Promise<typeof ABORTED>
  running: Set<AbortController>
}

/** An unknown tool or input its schema refuses, as an outcome; else the tool and its checked input. */
async function refusal(
  call: ToolCallBlock,
  tool: AgentTool | undefined,
  available: string,
): Promise<{ outcome: Omit<ToolOutcome, 'call'> } | { tool: AgentTool; input: unknown }> {
  if (!tool) {
    const error = new UnknownToolError(`Unknown tool "${call.name}". ${available}`, {
      details: { tool: call.name },
    })
    return { outcome: { result: errorResult(call, error), error, durationMs: 0 } }
  }
  const parsed = await tool.input.safeParseAsync(call.input)
  if (parsed.success) return { tool, input: parsed.data }
  const error = new ToolInputError(
    `Invalid input for tool "${call.name}": ${describeIssues(parsed.error.issues)}`,
    { details: { tool: call.name } },
  )
  return { outcome: { result: errorResult(call, error), error, durationMs: 0 } }
}

/** What a tool's `execute` threw, as an error outcome (its output refused, or its failure). */
function thrownOutcome(
  call: ToolCallBlock,
  thrown: unknown,
  durationMs: number,
): Omit<ToolOutcome, 'call'> {
  if (ToolOutputError.isInstance(thrown)) {
    const error = new ToolOutputError(`Tool "${call.name}": ${thrown.message}`, {
      cause: thrown,
      details: { tool: call.name },
    })
    return { result: errorResult(call, error), error, durationMs }
  }
  const reason = thrown instanceof Error ? thrown.message : String(thrown)
  const error = new ToolExecutionError(`Tool "${call.name}" failed: ${reason}`, {
    cause: thrown,
    details: { tool: call.name },
  })
  return { result: errorResult(call, error), error, durationMs }
}

/** A finished `execute`'s value as an outcome: a timeout, an abort, or the result sent back. */
function settledOutcome(
  call: ToolCallBlock,
  output: unknown,
  timeoutMs: number,
  controller: AbortController,
  durationMs: number,
): Omit<ToolOutcome, 'call'> {
  if (output === TIMED_OUT) {
    const error = new ToolTimeoutError(`Tool "${call.name}" timed out after ${timeoutMs} ms.`, {
      details: { tool: call.name, timeoutMs },
    })
    controller.abort(error)
    return { result: errorResult(call, error), error, durationMs }
  }
  if (output === ABORTED) {
    const error = abortedError(call)
    return { result: errorResult(call, error), error, durationMs }
  }
  const content = toolOutputContent(output)
  return {
    result: { type: 'tool_result', toolCallId: call.id, content, isError: false },
    durationMs,
  }
}

async function runOne(
  call: ToolCallBlock,
  given: AgentTool | undefined,
  options: RunToolCallsOptions,
  available: string,
  batch: BatchAbort,
): Promise<Omit<ToolOutcome, 'call'>> {
  const checked = await refusal(call, given, available)
  if ('outcome' in checked) return checked.outcome
  const { tool } = checked
  const now = options.now ?? (() => performance.now())
  const controller = new AbortController()
  if (options.signal.aborted) controller.abort(options.signal.reason)
  batch.running.add(controller)
  const timeoutMs = tool.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS
  const started = now()
  try {
    const context = { signal: controller.signal, toolCallId: call.id, runId: options.runId }
    const execute = () => tool.execute(checked.input, context)
    const around = options.around
    const work = Promise.resolve().then(() => (around ? around(call, tool, execute) : execute()))
    work.catch(() => undefined) // a late rejection after a timeout or abort is not unhandled
    const output = await Promise.race([within(work, timeoutMs), batch.aborted])
    return settledOutcome(call, output, timeoutMs, controller, now() - started)
  } catch (thrown) {
    return thrownOutcome(call, thrown, now() - started)
  } finally {
    batch.running.delete(controller)
  }
}

function abortedError(call: ToolCallBlock): ToolAbortedError {
  return new ToolAbortedError(`The run was aborted before tool "${call.name}" finished.`, {
    details: { tool: call.name },
  })
}

/**
 * Run the tool calls of one reply: up to `concurrency` at a time, each input validated with its
 * tool's zod schema first; an unknown tool, invalid input, a throw, a timeout or an abort becomes
 * an error result (`isError: true`, a short message the model can act on) and the others go on.
 * Outcomes come back in call order. When the run is aborted every unfinished call ends at once
 * with an aborted result (its tool's signal has fired), so the caller never waits for a tool that
 * ignores its signal.
 */
export async function runToolCalls(
  calls: readonly ToolCallBlock[],
  options: RunToolCallsOptions,
): Promise<ToolOutcome[]> {
  assertArray(calls, 'runToolCalls', 'calls')
  assertObject(options, 'runToolCalls', 'options')
  const outcomes: Array<ToolOutcome | undefined> = new Array(calls.length)
  const names = [...options.tools.keys()]
  const available =
    names.length === 0 ? 'No tools are available.' : `Available tools: ${names.join(', ')}.`
  const settle = (index: number, outcome: Omit<ToolOutcome, 'call'>): void => {
    if (outcomes[index]) return
    const full = { call: calls[index]!, ...outcome }
    outcomes[index] = full
    options.onOutcome?.(full, index)
  }
  let next = 0
  const worker = async (): Promise<void> => {
    while (next < calls.length && !options.signal.aborted) {
      const index = next++
      const call = calls[index]!
      const refused = options.refused?.get(index)
      if (refused) {
        settle(index, { result: errorResult(call, refused), error: refused, durationMs: 0 })
        continue
      }
      settle(index, await runOne(call, options.tools.get(call.name), options, available, batch))
    }
  }
  const width = Math.max(1, Math.min(options.concurrency, calls.length))
  const aborted = whenAborted(options.signal)
  const batch: BatchAbort = { aborted: aborted.promise, running: new Set() }
  const stopRunning = (): void => {
    for (const controller of batch.running) controller.abort(options.signal.reason)
  }
  options.signal.addEventListener('abort', stopRunning, { once: true })
  try {
    await Promise.race([Promise.all(Array.from({ length: width }, worker)), aborted.promise])
  } finally {
    aborted.dispose()
    options.signal.removeEventListener('abort', stopRunning)
  }
  calls.forEach((call, index) => {
    if (!outcomes[index]) {
      const error = abortedError(call)
      settle(index, { result: errorResult(call, error), error, durationMs: 0 })
    }
  })
  return outcomes as ToolOutcome[]
}
