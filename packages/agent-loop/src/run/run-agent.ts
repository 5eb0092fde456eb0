import { randomId } from '@contextkit/core'
import type * as z from 'zod'
import { type AgentEvent, type AgentResult, EventChannel } from '../events/events.js'
import { AgentLoop } from './agent-loop.js'
import type { RunAgentOptions } from './option-checks.js'
import { resolveOptions } from './options.js'

/** A started run. */
export interface AgentRun<Output = unknown> {
  /** The run's id (the given `runId`, or a generated one). */
  readonly runId: string
  /**
   * Everything the run reports, in order (see `AgentEvent`), as a bounded stream: iterate it
   * during the run, after it, or never. Read events are released (no replay: a second iterator
   * starts after what the first read); unread, the last 1,024 are kept for a late iterator.
   * With backpressure: while a running iterator is 1,024 events behind, the loop stops pulling
   * the model's stream (end an iterator with `break` / `return()`, or the run waits for it).
   */
  readonly events: AsyncIterable<AgentEvent>
  /**
   * The outcome. Always resolves — failures are `stopReason: 'error'` with `error` set, aborts
   * `stopReason: 'aborted'` — so there is never an unhandled rejection; awaiting it alone is
   * enough (the events need not be read).
   */
  readonly result: Promise<AgentResult<Output>>
  /**
   * Stop the run: the model stream and every running tool see the abort signal, and `result`
   * settles promptly with `stopReason: 'aborted'`, the session holding only whole steps.
   */
  abort(reason?: unknown): void
}

/**
 * Run the agent loop: prepare the turn with the middleware, optionally plan (`plan`), then
 * call the model, run the tools it asks for (validated, in parallel, with timeouts), feed the
 * results back, and repeat until the model stops, a stop condition fires (`maxSteps(20)` by
 * default), the loop guard trips, the run is aborted, or something fails. Every reply goes
 * through the middleware's `finalize`; with `session`, each step is appended to the store as it
 * ends. Starts at once; throws a `ValidationError` (synchronously) only for invalid options.
 *
 * @example
 * ```ts
 * const run = runAgent({ provider, model: 'claude-haiku-4-5', messages: [textMessage('user', 'Hi')] })
 * for await (const e of run.events) if (e.type === 'text-delta') process.stdout.write(e.text)
 * const { stopReason, messages } = await run.result
 * ```
 */
export function runAgent<Output = unknown>(
  options: RunAgentOptions & { output?: z.ZodType<Output> },
): AgentRun<Output> {
  const resolved = resolveOptions(options)
  const controller = new AbortController()
  const external = options.signal
  const onExternalAbort = (): void => controller.abort(external?.reason)
  if (external?.aborted) controller.abort(external.reason)
  else external?.addEventListener('abort', onExternalAbort, { once: true })
  const channel = new EventChannel<AgentEvent>()
  const runId = options.runId ?? `run_${randomId()}`
  const loop = new AgentLoop(resolved, controller.signal, channel, runId, (reason) =>
    controller.abort(reason),
  )
  const result = (loop.run() as Promise<AgentResult<Output>>).finally(() => {
    external?.removeEventListener('abort', onExternalAbort)
    channel.close()
  })
  return {
    runId,
    events: channel,
    result,
    abort(reason?: unknown) {
      if (controller.signal.aborted) return
      if (reason === undefined) controller.abort()
      else controller.abort(reason)
    },
  }
}
