// A contextkit run as the AI SDK UI's message stream (what `useChat` renders). The run is typed
// by shape, not imported: this package depends on core only (docs/architecture.md), and
// `runAgent`'s `AgentRun` from `@contextkit/agent-loop` fits {@link UIStreamableRun} as it is.
import { invalidArgument } from '@contextkit/core'
import type { UIMessageChunk } from 'ai'
import { createUIMessageStreamResponse } from 'ai'
import { isRecord } from './is-record.js'

/** An event of a run, as far as this package needs to know it: its `type` and its fields. */
export interface RunEventLike {
  /** The event's kind (`text-delta`, `tool-call`, `run-end`, …); kinds this package does not know are skipped. */
  readonly type: string
}

/**
 * What {@link toUIMessageStream} reads from a run: its events, in order (`runAgent`'s `AgentRun`
 * is one; a replay of saved events is another).
 */
export interface UIStreamableRun {
  /** The run's events, in order (`AgentRun.events`). */
  readonly events: AsyncIterable<RunEventLike>
}

/** The message metadata the stream ends with (`message.metadata` in `useChat`). */
export interface ContextkitRunMetadata {
  /** The run's id. */
  runId?: string
  /** Why the run ended (`end_turn`, `awaiting_approval`, `aborted`, `error`, …). */
  stopReason?: string
  /** The run's usage: tokens in (uncached, read from, written to the cache) and out, hit rate, cost. */
  usage?: Record<string, unknown>
  /** Model calls the run made. */
  steps?: number
}

type Rec = Record<string, unknown>
type Chunk = UIMessageChunk<ContextkitRunMetadata>
type FinishReason = Extract<Chunk, { type: 'finish' }>['finishReason']

const TOOL_DENIED = 'agent_loop_tool_denied'

const str = (v: unknown): string => (typeof v === 'string' ? v : '')

/** The finish reason of the UI protocol for a run's stop reason. */
function finishReasonOf(stopReason: string): FinishReason {
  switch (stopReason) {
    case 'end_turn':
    case 'stop_sequence':
    case 'clarify':
      return 'stop'
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length'
    case 'refusal':
      return 'content-filter'
    case 'awaiting_approval':
      return 'tool-calls'
    case 'error':
      return 'error'
    default:
      return 'other'
  }
}

/** A tool result's output for the page: its text, or its blocks when it holds more than text. */
function outputOf(result: Rec): unknown {
  const content = Array.isArray(result.content) ? result.content : []
  if (content.every((b) => isRecord(b) && b.type === 'text')) {
    return content.map((b) => str((b as Rec).text)).join('')
  }
  return content
}

/** The usage of a run's result without the per-call list (the page wants the sums). */
function usageOf(usage: unknown): Record<string, unknown> | undefined {
  if (!isRecord(usage)) return undefined
  const { calls: _calls, ...sums } = usage
  return sums
}

/**
 * Turns run events into UI chunks, one event at a time: keeps which text or reasoning part is
 * open (each gets an id; a part closes when the other kind starts, a tool call starts or the step
 * ends).
 */
class ChunkWriter {
  #open: { kind: 'text' | 'reasoning'; id: string } | undefined
  #parts = 0
  #started = false
  #done = false

  constructor(readonly messageId: string | undefined) {}

  get done(): boolean {
    return this.#done
  }

  /** The chunks of one event. */
  chunks(e: Rec): Chunk[] {
    const out: Chunk[] = []
    if (!this.#started) {
      this.#started = true
      const runId = e.type === 'run-start' ? str(e.runId) : ''
      const messageId = this.messageId ?? (runId === '' ? undefined : runId)
      out.push(messageId === undefined ? { type: 'start' } : { type: 'start', messageId })
    }
    switch (e.type) {
      case 'step-start':
        out.push({ type: 'start-step' })
        break
      case 'text-delta':
      case 'thinking-delta':
        this.#delta(out, e.type === 'text-delta' ? 'text' : 'reasoning', str(e.text))
        break
      case 'tool-call-start':
        this.#close(out)
        out.push({ type: 'tool-input-start', toolCallId: str(e.id), toolName: str(e.name) })
        break
      case 'tool-call-delta':
        out.push({
          type: 'tool-input-delta',
          toolCallId: str(e.id),
          inputTextDelta: str(e.partialJson),
        })
        break
      case 'tool-call': {
        this.#close(out)
        const call = isRecord(e.call) ? e.call : {}
        out.push({
          type: 'tool-input-available',
          toolCallId: str(call.id),
          toolName: str(call.name),
          input: call.input ?? {},
        })
        break
      }
      case 'tool-approval-requested':
        this.#close(out)
        out.push({
          type: 'tool-approval-request',
          approvalId: str(e.toolCallId),
          toolCallId: str(e.toolCallId),
        })
        break
      case 'tool-result':
        out.push(this.#result(e))
        break
      case 'step-end':
        this.#close(out)
        out.push({ type: 'finish-step' })
        break
      case 'run-end':
        this.#end(out, isRecord(e.result) ? e.result : {})
        break
    }
    return out
  }

  /** The chunks that close the stream when the events ended without a `run-end`. */
  unfinished(error?: unknown): Chunk[] {
    if (this.#done) return []
    const out = this.chunks({ type: 'none' })
    this.#close(out)
    const text = error instanceof Error ? error.message : 'The run ended without a result.'
    out.push({ type: 'error', errorText: text })
    this.#done = true
    return out
  }

  #delta(out: Chunk[], kind: 'text' | 'reasoning', delta: string): void {
    if (delta === '') return
    if (this.#open?.kind !== kind) {
      this.#close(out)
      this.#open = { kind, id: `${kind}-${++this.#parts}` }
      out.push({ type: kind === 'text' ? 'text-start' : 'reasoning-start', id: this.#open.id })
    }
    const id = this.#open.id
    out.push(
      kind === 'text' ? { type: 'text-delta', id, delta } : { type: 'reasoning-delta', id, delta },
    )
  }

  #close(out: Chunk[]): void {
    const open = this.#open
    if (!open) return
    this.#open = undefined
    out.push({ type: open.kind === 'text' ? 'text-end' : 'reasoning-end', id: open.id })
  }

  #result(e: Rec): Chunk {
    const result = isRecord(e.result) ? e.result : {}
    const toolCallId = str(result.toolCallId)
    if (result.isError !== true)
      return { type: 'tool-output-available', toolCallId, output: outputOf(result) }
    const error = isRecord(e.error) ? e.error : {}
    if (error.code === TOOL_DENIED) return { type: 'tool-output-denied', toolCallId }
    const text = str(error.message) || String(outputOf(result))
    return { type: 'tool-output-error', toolCallId, errorText: text }
  }

  #end(out: Chunk[], result: Rec): void {
    this.#close(out)
    const stopReason = str(result.stopReason)
    const usage = usageOf(result.usage)
    const metadata: ContextkitRunMetadata = {
      ...(typeof result.runId === 'string' ? { runId: result.runId } : {}),
      stopReason,
      ...(usage ? { usage } : {}),
      ...(typeof result.steps === 'number' ? { steps: result.steps } : {}),
    }
    out.push({ type: 'message-metadata', messageMetadata: metadata })
    const error = isRecord(result.error) ? str(result.error.message) : ''
    if (stopReason === 'aborted') {
      out.push(error === '' ? { type: 'abort' } : { type: 'abort', reason: error })
    } else {
      if (stopReason === 'error') out.push({ type: 'error', errorText: error || 'The run failed.' })
      out.push({
        type: 'finish',
        finishReason: finishReasonOf(stopReason),
        messageMetadata: metadata,
      })
    }
    this.#done = true
  }
}

/** Options of {@link toUIMessageStream}. */
export interface ToUIMessageStreamOptions {
  /** The id of the assistant message the stream builds. Default: the run's id (from `run-start`). */
  messageId?: string
}

function checkRun(fn: string, run: unknown): asserts run is UIStreamableRun {
  const events = isRecord(run) ? run.events : undefined
  if (!isRecord(events) || typeof (events as Rec)[Symbol.asyncIterator as never] !== 'function') {
    invalidArgument(fn, 'run', 'a run with an async-iterable `events` (runAgent’s AgentRun)', run)
  }
}

function checkOptions(fn: string, options: unknown): ToUIMessageStreamOptions {
  if (options === undefined) return {}
  if (!isRecord(options)) invalidArgument(fn, 'options', 'an options object', options)
  for (const key of Object.keys(options)) {
    if (key !== 'messageId') invalidArgument(fn, `options.${key}`, 'a known option (messageId)')
  }
  if (options.messageId !== undefined && typeof options.messageId !== 'string') {
    invalidArgument(fn, 'options.messageId', 'a string', options.messageId)
  }
  return options as ToUIMessageStreamOptions
}

/**
 * A run as the AI SDK UI message stream (`useChat`'s protocol): `start`, then per step
 * `start-step` … `finish-step` with its text and reasoning deltas (`text-*`, `reasoning-*`) and
 * tool calls (`tool-input-start`/`-delta`/`-available`, then `tool-output-available`, or
 * `tool-output-error`, or `tool-output-denied` for a denied call); a call that waits for a person
 * is a `tool-approval-request` (its `approvalId` is the tool call's id, the id a resume's
 * `approvals` take). The run's end is a `message-metadata` chunk ({@link ContextkitRunMetadata}:
 * run id, stop reason, usage, steps), then `finish` with the protocol's finish reason, or `abort`
 * for an aborted run (an `error` chunk before `finish` for a failed one).
 *
 * The stream pulls the events as it is read; cancelling it (a page that went away) stops reading
 * them but does not stop the run (call the run's `abort()` for that).
 */
export function toUIMessageStream(
  run: UIStreamableRun,
  options?: ToUIMessageStreamOptions,
): ReadableStream<UIMessageChunk<ContextkitRunMetadata>> {
  checkRun('toUIMessageStream', run)
  const { messageId } = checkOptions('toUIMessageStream', options)
  const writer = new ChunkWriter(messageId)
  let events: AsyncIterator<RunEventLike> | undefined
  return new ReadableStream<Chunk>({
    async pull(controller) {
      events ??= run.events[Symbol.asyncIterator]()
      try {
        for (;;) {
          const next = await events.next()
          const chunks = next.done
            ? writer.unfinished()
            : writer.chunks(next.value as unknown as Rec)
          for (const c of chunks) controller.enqueue(c)
          if (next.done || writer.done) {
            if (!next.done) await events.return?.()
            controller.close()
            return
          }
          if (chunks.length > 0) return
        }
      } catch (error) {
        for (const c of writer.unfinished(error)) controller.enqueue(c)
        controller.close()
      }
    },
    async cancel() {
      await events?.return?.()
    },
  })
}

/**
 * {@link toUIMessageStream} as an HTTP `Response` (server-sent events with the AI SDK UI's
 * headers, through the `ai` package's `createUIMessageStreamResponse`): return it from a route
 * handler that `useChat` posts to.
 */
export function toUIMessageStreamResponse(
  run: UIStreamableRun,
  init?: ToUIMessageStreamOptions & { status?: number; headers?: Record<string, string> },
): Response {
  checkRun('toUIMessageStreamResponse', run)
  const { status, headers, ...options } = isRecord(init) ? init : {}
  if (init !== undefined && !isRecord(init)) {
    invalidArgument('toUIMessageStreamResponse', 'init', 'an options object', init)
  }
  const stream = toUIMessageStream(run, options as ToUIMessageStreamOptions)
  return createUIMessageStreamResponse({
    stream,
    ...(typeof status === 'number' ? { status } : {}),
    ...(isRecord(headers) ? { headers: headers as Record<string, string> } : {}),
  })
}
