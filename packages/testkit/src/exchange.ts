/**
 * One request/response pair and the emulator state the endpoint handlers share.
 */
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http'
import type { PromptCache } from './cache-model.js'
import { TestkitError } from './errors.js'
import { sendError } from './http-errors.js'
import type { ResolvedModel } from './models.js'
import type {
  Fault,
  NormalizedReply,
  ScriptRequest,
  ScriptRunner,
  TransportOptions,
} from './script.js'
import type { ThinkingLedger } from './thinking-ledger.js'
import type { ThreadStore } from './threads.js'
import { pause, planChunks, resetConnection, writeChunks } from './transport.js'

/** Pause between the last bytes of a stream and a scripted reset, in ms. */
const RESET_GRACE_MS = 15

/** A request as the emulator saw it, for assertions. */
export interface RecordedRequest {
  /** HTTP method. */
  method: string
  /** Path without the query, e.g. `/v1/messages`. */
  path: string
  /** Query parameters. */
  query: Record<string, string>
  /** Headers with lower-cased names (repeated headers joined with `, `). */
  headers: Record<string, string>
  /** The body parsed as JSON, or `undefined` when empty or not JSON. */
  body: unknown
  /** The body as text. */
  rawBody: string
  /** The `request-id` the emulator answered with. */
  requestId: string
  /** The HTTP status sent, or `undefined` if none was (connection reset, still running). */
  status: number | undefined
}

/** Shared, per-emulator state. */
export interface EmulatorState {
  runner: ScriptRunner
  models: Map<string, ResolvedModel>
  transport: Required<Omit<TransportOptions, 'writeSize'>> & { writeSize: number | undefined }
  failures: TestkitError[]
  signal: AbortSignal
  nextId: (prefix: string) => string
  /** Server-held conversations (message threads). */
  threads: ThreadStore
  /** The thinking sent with tool calls, to check continuations against. */
  thinking: ThinkingLedger
  /** The `strict` option: unknown fields and betas are a 400. */
  strict: boolean
  /** `anthropic-beta` values accepted in strict mode besides the known ones. */
  extraBetas: readonly string[]
  /** The prompt-cache model (reads, writes, usage figures). */
  cache: PromptCache
}

/** The `retry-after`, `retry-after-ms` and `x-should-retry` headers an http fault asks for. */
export function retryHeaders(f: Extract<Fault, { kind: 'http' }>): Record<string, string> {
  const headers: Record<string, string> = {}
  if (f.retryAfter !== undefined) headers['retry-after'] = String(f.retryAfter)
  if (f.retryAfterMs !== undefined) headers['retry-after-ms'] = String(f.retryAfterMs)
  if (f.shouldRetry !== undefined) headers['x-should-retry'] = String(f.shouldRetry)
  return headers
}

/** Wraps a request/response with bookkeeping (status recording, transport, faults). */
export class Exchange {
  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    readonly record: RecordedRequest,
    readonly state: EmulatorState,
  ) {}

  /** The request id. */
  get id(): string {
    return this.record.requestId
  }

  /** Sends an API error body (`details` goes in `error.details`). */
  error(
    status: number,
    message: string,
    headers: Record<string, string> = {},
    type?: string,
    details?: Record<string, unknown>,
  ): void {
    this.record.status = status
    sendError(this.res, status, message, this.id, headers, type, details)
  }

  /** Writes the status line and headers. */
  head(status: number, headers: OutgoingHttpHeaders): void {
    this.record.status = status
    this.res.writeHead(status, { 'request-id': this.id, ...headers })
  }

  /** Transport settings for a reply: its overrides over the emulator's. */
  transport(reply: NormalizedReply | undefined): EmulatorState['transport'] {
    return { ...this.state.transport, ...(reply?.transport ?? {}) }
  }

  /** Waits before answering; `false` if the emulator closed meanwhile. */
  async delayHeaders(reply: NormalizedReply | undefined): Promise<boolean> {
    return pause(this.transport(reply).headersDelayMs, this.state.signal)
  }

  /** Writes frames per the reply's transport; then ends or resets. */
  async send(
    frames: readonly string[],
    reply: NormalizedReply | undefined,
    then: 'end' | 'reset',
  ): Promise<void> {
    const t = this.transport(reply)
    const chunks = planChunks(frames, t.writeSize)
    const ok = await writeChunks(this.res, chunks, t, this.state.signal)
    if (!ok) {
      this.res.destroy()
      return
    }
    if (then === 'reset') {
      // Let the client read what was sent before the RST arrives.
      if (chunks.length > 0) await pause(RESET_GRACE_MS, this.state.signal)
      resetConnection(this.res)
    } else this.res.end()
  }

  /** Runs the script; on failure answers 500 (`x-should-retry: false`) and returns `undefined`. */
  async reply(request: Omit<ScriptRequest, 'index'>): Promise<NormalizedReply | undefined> {
    try {
      return await this.state.runner.next(request)
    } catch (e) {
      const err = TestkitError.isInstance(e)
        ? e
        : new TestkitError('unexpected script failure', { cause: e })
      this.state.failures.push(err)
      this.error(500, `testkit: ${err.message}`, { 'x-should-retry': 'false' }, 'api_error')
      return undefined
    }
  }

  /** Applies an `http` fault; returns `true` if the reply was a fault that was answered. */
  httpFault(
    reply: NormalizedReply,
    errorTypeFor: (status: number) => string,
    messageFor: (status: number) => string,
  ): boolean {
    const f = reply.fault
    if (f?.kind !== 'http') return false
    const headers = retryHeaders(f)
    this.error(
      f.status,
      f.message ?? messageFor(f.status),
      headers,
      f.errorType ?? errorTypeFor(f.status),
    )
    return true
  }

  /** Resets the connection without a response. */
  reset(): void {
    resetConnection(this.res)
  }
}
