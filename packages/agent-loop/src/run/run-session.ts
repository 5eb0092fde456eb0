import {
  type AssistantMessage,
  emptyUsage,
  type KeptSessionLease,
  type Trace,
} from '@contextkit/core'
import type { RunTokenCounter } from '../budget/budget.js'
import type { AgentWarning } from '../events/events.js'
import { AGENT_TRACE_STAGES } from '../events/trace-stages.js'
import { SessionRun } from '../session/session-run.js'
import type { ResolvedOptions } from './options.js'
import { holdSessionLease } from './session-lease.js'

/** What {@link openRunSession} needs from the run. */
export interface RunSessionInput {
  runId: string
  signal: AbortSignal
  /** Aborts the run (a lost lease). */
  abort: (reason: unknown) => void
  counter: RunTokenCounter
  trace: Trace
  /** Called with the lease as soon as it is held, so the run releases it whatever follows. */
  onLease: (lease: KeptSessionLease | undefined) => void
}

/**
 * A run's session (`options.session` must be set): take its lease, waiting while another run
 * holds it (`sessionWaitMs`), then load its log (the tail a resume needs) and record
 * `agent:session-loaded`.
 */
export async function openRunSession(
  o: ResolvedOptions,
  input: RunSessionInput,
): Promise<{
  opened: Omit<Awaited<ReturnType<typeof SessionRun.open>>, 'warnings'>
  warnings: AgentWarning[]
}> {
  const options = o.session!
  input.onLease(
    await holdSessionLease({
      session: options,
      runId: input.runId,
      waitMs: o.sessionWaitMs,
      signal: input.signal,
      onLost: input.abort,
    }),
  )
  const { warnings, ...opened } = await SessionRun.open(options, {
    tokens: Math.floor(o.model.contextWindow / 2),
    counter: input.counter.counter,
    model: o.model.id,
  })
  input.trace.record(AGENT_TRACE_STAGES.sessionLoaded, {
    sessionId: options.id,
    messages: opened.stored,
    state: opened.state.kind,
    warnings: warnings.length,
  })
  return { opened, warnings }
}

/** What `run-start` says (the event and the trace record). */
export function runStartData(o: ResolvedOptions, runId: string, historyMessages: number) {
  return {
    runId,
    model: o.model.id,
    ...(o.session ? { sessionId: o.session.id } : {}),
    historyMessages,
  }
}

/** A reply of plain text that ends the turn (the clarify question), with no usage. */
export function textReply(text: string): AssistantMessage {
  return {
    role: 'assistant',
    content: [{ type: 'text', text }],
    stopReason: 'end_turn',
    usage: emptyUsage(),
  }
}
