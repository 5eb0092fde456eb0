import {
  ABORTED,
  type AssistantMessage,
  type ContentBlock,
  describeError,
  emptyUsage,
  exceedsJsonDepth,
  MAX_JSON_DEPTH,
  type StopReason,
  type ToolCallBlock,
  type Trace,
  type Usage,
  whenAborted,
} from '@contextkit/core'
import type { StreamEvent, StreamParser } from '@contextkit/formatters'
import type { AgentEvent, AgentWarning } from '../events/events.js'
import { safeRecord } from '../events/run-trace.js'
import { AGENT_TRACE_STAGES } from '../events/trace-stages.js'
import { AGENT_LOOP_WARNINGS } from '../events/warnings.js'
import type { ModelProvider, ProviderEvent, ProviderRequest } from '../provider/contract.js'
import { ProviderError } from '../provider/errors.js'

/** Inputs of {@link streamReply}. */
export interface StreamReplyInput {
  provider: ModelProvider
  request: ProviderRequest
  /** A fresh parser of the request's formatter. */
  parser: StreamParser
  signal: AbortSignal
  /** The step this model call belongs to. */
  step: number
  /** The call's phase (`agent`, `plan`, `output`, `compaction`), for its trace records. */
  phase?: string
  /** The run's trace: a provider retry becomes `agent:retry`, the reply's identity `agent:response`. */
  trace?: Trace
  emit(event: AgentEvent): void
  warn(warning: AgentWarning): void
  /**
   * Backpressure from the run's event readers: a promise to wait on before the next provider
   * event when a reader has fallen too far behind, `undefined` to go on at once.
   */
  backpressure?: () => Promise<void> | undefined
}

/** How a streamed reply ended. `reply` holds what arrived (incomplete tool calls left out). */
export type StreamReplyOutcome =
  | { kind: 'done'; reply: AssistantMessage; invalidCalls: Map<string, string> }
  | { kind: 'aborted'; reply: AssistantMessage }
  | { kind: 'failed'; reply: AssistantMessage; error: ProviderError }

/** Folds provider and parser events into content blocks, in arrival order. */
class ReplyBuilder {
  content: ContentBlock[] = []
  invalidCalls = new Map<string, string>()
  usage: Usage = emptyUsage()
  #thinkingOpen = false
  #pending = new Map<string, string>()
  readonly #input: StreamReplyInput

  constructor(input: StreamReplyInput) {
    this.#input = input
    input.parser.push(input.request.assistantPrefill ?? '')
  }

  reset(): void {
    this.content = []
    this.invalidCalls = new Map()
    this.usage = emptyUsage()
    this.#thinkingOpen = false
    this.#pending = new Map()
    this.#input.parser.reset()
    this.#input.parser.push(this.#input.request.assistantPrefill ?? '')
  }

  #text(text: string): void {
    if (text === '') return
    const last = this.content[this.content.length - 1]
    if (last?.type === 'text') last.text += text
    else this.content.push({ type: 'text', text })
    this.#input.emit({ type: 'text-delta', step: this.#input.step, text })
  }

  #thinking(text: string, open: boolean): void {
    const last = this.content[this.content.length - 1]
    if (last?.type === 'thinking' && this.#thinkingOpen) last.thinking += text
    else {
      this.content.push({ type: 'thinking', thinking: text })
      this.#thinkingOpen = open
    }
    if (text !== '') this.#input.emit({ type: 'thinking-delta', step: this.#input.step, text })
  }

  /**
   * A call whose input nests deeper than core's `MAX_JSON_DEPTH` keeps an empty input (so the
   * loop guard, the stores and the trace only ever see bounded JSON) and is answered with an
   * error result telling the model why; it never runs.
   */
  #bounded(call: ToolCallBlock): ToolCallBlock {
    if (!exceedsJsonDepth(call.input)) return call
    this.invalidCalls.set(
      call.id,
      `the input nests deeper than ${MAX_JSON_DEPTH} levels of arrays and objects`,
    )
    const { raw: _raw, ...rest } = call
    return { ...rest, input: {} }
  }

  parsed(events: readonly StreamEvent[]): void {
    const step = this.#input.step
    for (const e of events) {
      if (e.type === 'text-delta') this.#text(e.text)
      else if (e.type === 'thinking-start') this.#thinking('', true)
      else if (e.type === 'thinking-delta') this.#thinking(e.text, true)
      else if (e.type === 'thinking-end') this.#thinkingOpen = false
      else if (e.type === 'tool-call-start') {
        this.#input.emit({ type: 'tool-call-start', step, id: e.id, name: e.name })
      } else if (e.type === 'tool-call-end') {
        if (e.incomplete) {
          this.#input.warn({
            code: AGENT_LOOP_WARNINGS.incompleteToolCall,
            message: `The reply ended inside a call to ${e.call.name}; it was not run.`,
            source: 'loop',
          })
          continue
        }
        const call = this.#bounded(e.call)
        this.content.push(call)
        // text formats deliver a call's input whole: one delta, as a native stream would in pieces
        const partialJson = JSON.stringify(call.input)
        this.#input.emit({ type: 'tool-call-delta', step, id: call.id, partialJson })
        this.#input.emit({ type: 'tool-call', step, call })
      }
    }
  }

  provider(event: ProviderEvent): void {
    const step = this.#input.step
    switch (event.type) {
      case 'text-delta':
        this.parsed(this.#input.parser.processChunk(event.text))
        return
      case 'thinking-delta':
        this.#thinking(event.text, true)
        return
      case 'thinking-end': {
        const last = this.content[this.content.length - 1]
        if (last?.type === 'thinking' && event.signature !== undefined)
          last.signature = event.signature
        this.#thinkingOpen = false
        return
      }
      case 'redacted-thinking':
        this.content.push({ type: 'redacted_thinking', data: event.data })
        this.#thinkingOpen = false
        return
      case 'tool-call-start':
        this.#pending.set(event.id, event.name)
        this.#input.emit({ type: 'tool-call-start', step, id: event.id, name: event.name })
        return
      case 'tool-call-delta':
        this.#input.emit({
          type: 'tool-call-delta',
          step,
          id: event.id,
          partialJson: event.partialJson,
        })
        return
      case 'tool-call-end': {
        this.#pending.delete(event.id)
        if (event.parseError !== undefined) this.invalidCalls.set(event.id, event.parseError)
        const call = this.#bounded({
          type: 'tool_call' as const,
          id: event.id,
          name: event.name,
          input: event.input,
        })
        this.content.push(call)
        this.#input.emit({ type: 'tool-call', step, call })
        return
      }
      case 'usage':
        this.usage = { ...this.usage, ...event.usage }
        return
      case 'warning':
        this.#input.warn({ code: event.code, message: event.message, source: 'provider' })
        return
      default:
        return
    }
  }

  /** End of the reply: release held-back text; a stop sequence that closed a tool call is fed back. */
  end(stopSequence?: string): void {
    const parser = this.#input.parser
    if (stopSequence && parser.getCurrentBlockType() === 'tool-call') {
      this.parsed(parser.processChunk(stopSequence))
    }
    this.parsed(parser.flush())
    if (this.#pending.size > 0) {
      this.#input.warn({
        code: AGENT_LOOP_WARNINGS.incompleteToolCall,
        message: `The reply ended inside ${this.#pending.size} tool call(s); they were not run.`,
        source: 'loop',
      })
      this.#pending.clear()
    }
  }

  message(stopReason: StopReason, stopSequence?: string): AssistantMessage {
    const content = this.content.filter((b) => b.type !== 'text' || b.text !== '')
    // a reply that asks for tools ended its step to get them, whatever ended the text: text formats
    // (ChatML, completions) end a call with a stop sequence or a plain stop
    const natural = stopReason === 'end_turn' || stopReason === 'stop_sequence'
    const asksTools = natural && content.some((b) => b.type === 'tool_call')
    const reply: AssistantMessage = {
      role: 'assistant',
      content,
      stopReason: asksTools ? 'tool_use' : stopReason,
      usage: this.usage,
    }
    if (stopSequence !== undefined) reply.stopSequence = stopSequence
    return reply
  }
}

function asProviderError(thrown: unknown, provider: string): ProviderError {
  if (ProviderError.isInstance(thrown)) return thrown
  return new ProviderError(`Provider "${provider}" failed: ${describeError(thrown)}`, {
    cause: thrown,
    errorType: 'provider_threw',
  })
}

/**
 * One provider event applied to the reply being built: the outcome when it ends the reply
 * (`finish`, `error`), else `undefined` (a `retry` voids the partial reply and is reported).
 */
function applyEvent(
  input: StreamReplyInput,
  builder: ReplyBuilder,
  event: ProviderEvent,
  partial: (reason: StopReason) => AssistantMessage,
): StreamReplyOutcome | undefined {
  if (event.type === 'finish') {
    traceResponse(input, event)
    builder.usage = event.usage
    builder.end(event.stopReason === 'stop_sequence' ? event.stopSequence : undefined)
    return {
      kind: 'done',
      reply: builder.message(event.stopReason, event.stopSequence),
      invalidCalls: builder.invalidCalls,
    }
  }
  if (event.type === 'error') {
    if (input.signal.aborted) return { kind: 'aborted', reply: partial('aborted') }
    return { kind: 'failed', reply: partial('error'), error: event.error }
  }
  if (event.type !== 'retry') {
    builder.provider(event)
    return undefined
  }
  builder.reset()
  const { attempt, delayMs, error } = event
  safeRecord(input.trace, AGENT_TRACE_STAGES.retry, {
    step: input.step,
    phase: input.phase ?? 'agent',
    attempt,
    delayMs,
    code: error.code,
    ...(error.status === undefined ? {} : { status: error.status }),
    ...(error.errorType === undefined ? {} : { errorType: error.errorType }),
    error: error.message,
  })
  input.emit({ type: 'retry', step: input.step, source: 'provider', attempt, delayMs, error })
  return undefined
}

/** The `agent:response` record of a finished reply: the id and model the API gave it. */
function traceResponse(
  input: StreamReplyInput,
  event: Extract<ProviderEvent, { type: 'finish' }>,
): void {
  safeRecord(input.trace, AGENT_TRACE_STAGES.response, {
    step: input.step,
    phase: input.phase ?? 'agent',
    stopReason: event.stopReason,
    ...(event.responseId === undefined ? {} : { id: event.responseId }),
    ...(event.responseModel === undefined ? {} : { model: event.responseModel }),
  })
}

/**
 * Stream one model call: provider text through the formatter's parser (seeded with the request's
 * `assistantPrefill`), native thinking and tool calls as they come, agent events emitted on the
 * way. A provider `retry` voids the partial reply. An abort ends the wait at once, whether or not
 * the provider honours its signal.
 */
export async function streamReply(input: StreamReplyInput): Promise<StreamReplyOutcome> {
  const builder = new ReplyBuilder(input)
  const { signal } = input
  const aborted = whenAborted(signal)
  // the provider's generator is always closed (its `finally` runs, its listeners go), also when
  // the reply ends on a `finish` or `error` event before the stream itself ended
  let open = false
  const partial = (reason: StopReason): AssistantMessage => {
    builder.end()
    return builder.message(reason)
  }
  let iterator: AsyncIterator<ProviderEvent> | undefined
  try {
    iterator = input.provider.stream(input.request, { signal })[Symbol.asyncIterator]()
    open = true
    while (true) {
      const next = await Promise.race([iterator.next(), aborted.promise])
      if (next === ABORTED) return { kind: 'aborted', reply: partial('aborted') }
      if (next.done) {
        open = false
        const error = new ProviderError(
          `Provider "${input.provider.name}" ended the stream without a finish or error event`,
          { errorType: 'incomplete_stream', retryable: true },
        )
        return { kind: 'failed', reply: partial('error'), error }
      }
      const end = applyEvent(input, builder, next.value, partial)
      if (end) return end
      // a reader far behind: stop pulling from the provider (its socket buffers, then TCP
      // holds the server) until the reader catches up; an abort ends the wait
      const behind = input.backpressure?.()
      if (behind && (await Promise.race([behind, aborted.promise])) === ABORTED) {
        return { kind: 'aborted', reply: partial('aborted') }
      }
    }
  } catch (thrown) {
    if (signal.aborted) return { kind: 'aborted', reply: partial('aborted') }
    return {
      kind: 'failed',
      reply: partial('error'),
      error: asProviderError(thrown, input.provider.name),
    }
  } finally {
    aborted.dispose()
    if (open) closeQuietly(iterator)
  }
}

/** End a provider stream early: its generator's `finally` runs; a failure there is ignored. */
function closeQuietly(iterator: AsyncIterator<ProviderEvent> | undefined): void {
  try {
    iterator?.return?.()?.catch(() => undefined)
  } catch {
    // a provider whose return() throws synchronously has nothing left to clean up
  }
}
