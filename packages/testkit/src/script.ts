/**
 * Scripted model behaviour: what the emulator answers, step by step or from a function of the
 * request. Reply specs arrive as `unknown` from user code and are checked here.
 */
import { invalidArgument, ScriptExhaustedError, ScriptFailedError } from './errors.js'
import type { WireRequestMessage, WireStopReason, WireUsage } from './wire-types.js'

/** A block of a scripted reply. A `tool_use` without `id` gets a generated `toolu_…` id. */
export type ReplyBlock =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: string; signature?: string }
  | { type: 'redacted_thinking'; data: string }
  | { type: 'tool_use'; name: string; input: Record<string, unknown>; id?: string }

/** A fault to inject instead of (or in the middle of) a normal reply. Bounded: one per step. */
export type Fault =
  | {
      /** Answer with an HTTP error status and an API error body. */
      kind: 'http'
      /** HTTP status, e.g. 429, 500, 529 (400–599). */
      status: number
      /** Error `type`. Default: from the status (429 `rate_limit_error`, 529 `overloaded_error`, 5xx `api_error`, …). */
      errorType?: string
      /** Error message. Default: from the status (`Overloaded`, `Rate limited`, …). */
      message?: string
      /** `retry-after` header in seconds (number) or verbatim (string, e.g. an HTTP date). Default: not sent. */
      retryAfter?: number | string
      /** `retry-after-ms` header. Default: not sent. */
      retryAfterMs?: number
      /** `x-should-retry` header. Default: not sent (the SDK then decides by status). */
      shouldRetry?: boolean
    }
  | {
      /** A 200 stream that sends `afterEvents` events, then `event: error` and ends. Streaming only. */
      kind: 'stream-error'
      /** Events sent before the error (≥ 0). */
      afterEvents: number
      /** Default `'overloaded_error'`. */
      errorType?: string
      /** Default `'Overloaded'`. */
      message?: string
    }
  | {
      /**
       * Reset the TCP connection (RST). Streaming: after `afterEvents` events (default 0, right
       * after the headers). Non-streaming: before any response byte.
       */
      kind: 'reset'
      afterEvents?: number
    }

/** How the response bytes go out. Every field is optional; per-step values override the emulator's. */
export interface TransportOptions {
  /** Bytes per `write()` (≥ 1), cutting across event and UTF-8 boundaries. Default: one write per SSE event / whole JSON body. */
  writeSize?: number
  /** Delay between writes in ms (slow chunks). Default `0`. */
  chunkDelayMs?: number
  /** Delay before the status line in ms (for timeout tests). Default `0`. */
  headersDelayMs?: number
  /** Characters per `text_delta` / `thinking_delta` when streaming (≥ 1). Default `16`. */
  deltaChars?: number
}

/**
 * What the scripted model answers. Give either `content` (full control, in order) or the
 * shorthands `thinking`, `text`, `toolUse`, which are emitted in that order.
 */
export interface ReplySpec {
  /** Shorthand: one text block. If the request has a prefill and `text` starts with it, the prefill is removed (the reply continues it). */
  text?: string
  /** Shorthand: a thinking block first; a string gets a generated signature. */
  thinking?: string | { thinking: string; signature?: string }
  /** Shorthand: tool calls after the text. */
  toolUse?:
    | { name: string; input: Record<string, unknown>; id?: string }
    | { name: string; input: Record<string, unknown>; id?: string }[]
  /** Explicit blocks (exclusive with the shorthands). */
  content?: ReplyBlock[]
  /** Stop reason. Default `'tool_use'` when there is a tool call, else `'end_turn'`; a matched stop sequence overrides it. */
  stopReason?: WireStopReason
  /** Usage overrides. Defaults: estimates (⌈chars/4⌉) for input/output, `0` for the cache fields. */
  usage?: Partial<WireUsage>
  /** A fault instead of / inside this reply. */
  fault?: Fault
  /** Transport overrides for this reply. */
  transport?: TransportOptions
}

/** What a script sees of a request. */
export interface ScriptRequest {
  /**
   * Which endpoint asked: `/v1/messages`, the OpenAI-compatible `/v1/completions`, or the
   * OpenAI-compatible `/v1/chat/completions` (its request converted to the Messages shape).
   */
  endpoint: 'messages' | 'completions' | 'chat'
  /** 0-based count of script calls so far (faults and replies alike). */
  index: number
  /** The model the request named. */
  model: string
  /** Messages with same-role turns merged; `[]` for completions. */
  messages: WireRequestMessage[]
  /** System prompt text (text blocks joined); `''` when absent. */
  system: string
  /** Text of the trailing assistant message, if the request ends with one; for completions `undefined`. */
  prefill: string | undefined
  /** Text of the last user message (completions: the prompt). */
  lastUserText: string
  /** The request's `stop_sequences` (`[]` when absent). */
  stopSequences: string[]
  /** The request's `max_tokens`. */
  maxTokens: number | undefined
  /** Whether the request asked for a streamed reply. */
  stream: boolean
  /** Names of the tools offered. */
  toolNames: string[]
  /** The parsed body as received. */
  body: Record<string, unknown>
  /** Request headers, lower-cased names. */
  headers: Record<string, string>
}

/** A step: a reply spec, a string (a text reply), or a function of the request. */
export type Step =
  | string
  | ReplySpec
  | ((request: ScriptRequest) => string | ReplySpec | Promise<string | ReplySpec>)

/** A list of steps used in order (one per request), or one function answering every request. */
export type Script =
  | readonly Step[]
  | ((request: ScriptRequest) => string | ReplySpec | Promise<string | ReplySpec>)

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

const STOP_REASONS: readonly string[] = [
  'end_turn',
  'max_tokens',
  'stop_sequence',
  'tool_use',
  'pause_turn',
  'refusal',
  'model_context_window_exceeded',
]

function bad(message: string, index: number): never {
  throw new ScriptFailedError(`script step ${index}: ${message}`, { details: { index } })
}

function checkToolUse(v: unknown, index: number): ReplyBlock {
  if (!isRecord(v) || typeof v.name !== 'string' || v.name === '' || !isRecord(v.input)) {
    bad('a tool call needs a non-empty `name` and an object `input`', index)
  }
  if (v.id !== undefined && typeof v.id !== 'string') bad('tool call `id` must be a string', index)
  return { type: 'tool_use', name: v.name, input: v.input, ...(v.id ? { id: v.id as string } : {}) }
}

function checkBlock(v: unknown, index: number): ReplyBlock {
  if (!isRecord(v)) bad('a content block must be an object', index)
  switch (v.type) {
    case 'text':
      if (typeof v.text !== 'string') bad('text block needs `text`', index)
      return { type: 'text', text: v.text }
    case 'thinking':
      if (typeof v.thinking !== 'string') bad('thinking block needs `thinking`', index)
      if (v.signature !== undefined && typeof v.signature !== 'string')
        bad('`signature` must be a string', index)
      return {
        type: 'thinking',
        thinking: v.thinking,
        ...(v.signature !== undefined ? { signature: v.signature as string } : {}),
      }
    case 'redacted_thinking':
      if (typeof v.data !== 'string') bad('redacted_thinking block needs `data`', index)
      return { type: 'redacted_thinking', data: v.data }
    case 'tool_use':
      return checkToolUse(v, index)
    default:
      return bad(`unknown block type ${JSON.stringify(v.type)}`, index)
  }
}

function checkCount(v: unknown, what: string, index: number, min: number): void {
  if (v !== undefined && (typeof v !== 'number' || !Number.isFinite(v) || v < min)) {
    bad(`${what} must be a number ≥ ${min}`, index)
  }
}

function checkFault(v: unknown, index: number): Fault {
  if (!isRecord(v)) bad('`fault` must be an object', index)
  switch (v.kind) {
    case 'http':
      if (!Number.isInteger(v.status) || (v.status as number) < 400 || (v.status as number) > 599) {
        bad('http fault `status` must be an integer 400–599', index)
      }
      checkCount(v.retryAfterMs, '`retryAfterMs`', index, 0)
      if (
        v.retryAfter !== undefined &&
        typeof v.retryAfter !== 'number' &&
        typeof v.retryAfter !== 'string'
      ) {
        bad('`retryAfter` must be a number or a string', index)
      }
      return v as Fault
    case 'stream-error':
      if (!Number.isInteger(v.afterEvents) || (v.afterEvents as number) < 0) {
        bad('stream-error fault needs an integer `afterEvents` ≥ 0', index)
      }
      return v as Fault
    case 'reset':
      if (
        v.afterEvents !== undefined &&
        (!Number.isInteger(v.afterEvents) || (v.afterEvents as number) < 0)
      ) {
        bad('reset fault `afterEvents` must be an integer ≥ 0', index)
      }
      return v as Fault
    default:
      return bad(`unknown fault kind ${JSON.stringify(v.kind)}`, index)
  }
}

/** Checks transport options (also used for the emulator-wide defaults). Throws a message string. */
export function transportProblem(v: unknown): string | undefined {
  if (v === undefined) return undefined
  if (!isRecord(v)) return '`transport` must be an object'
  const ints: [string, number][] = [
    ['writeSize', 1],
    ['deltaChars', 1],
    ['chunkDelayMs', 0],
    ['headersDelayMs', 0],
  ]
  for (const [k, min] of ints) {
    const x = v[k]
    if (x !== undefined && (typeof x !== 'number' || !Number.isFinite(x) || x < min)) {
      return `transport.${k} must be a finite number ≥ ${min}`
    }
  }
  return undefined
}

/** A checked reply: blocks in order plus the rest of the spec. */
export interface NormalizedReply {
  /** The reply's blocks, in order. */
  blocks: ReplyBlock[]
  /** The stop reason the spec asked for; `undefined` picks it from the blocks. */
  stopReason: WireStopReason | undefined
  /** Token counts the spec sets; the rest are computed. */
  usage: Partial<WireUsage>
  /** The failure to answer with instead of a reply, if any. */
  fault: Fault | undefined
  /** How the reply is streamed (chunking, delays). */
  transport: TransportOptions
}

/** Turns what a script produced (`unknown`) into a {@link NormalizedReply}, or throws {@link ScriptFailedError}. */
export function normalizeReply(value: unknown, index: number): NormalizedReply {
  if (typeof index !== 'number') invalidArgument('normalizeReply', 'index', 'a number', index)
  if (typeof value === 'string') {
    return {
      blocks: [{ type: 'text', text: value }],
      stopReason: undefined,
      usage: {},
      fault: undefined,
      transport: {},
    }
  }
  if (!isRecord(value)) bad('a step must be a string or a reply spec object', index)
  const shorthand =
    value.text !== undefined || value.thinking !== undefined || value.toolUse !== undefined
  if (shorthand && value.content !== undefined)
    bad('give either `content` or `text`/`thinking`/`toolUse`', index)
  const blocks: ReplyBlock[] = []
  if (value.content !== undefined) {
    if (!Array.isArray(value.content)) bad('`content` must be an array', index)
    for (const b of value.content) blocks.push(checkBlock(b, index))
  } else {
    if (typeof value.thinking === 'string')
      blocks.push({ type: 'thinking', thinking: value.thinking })
    else if (value.thinking !== undefined)
      blocks.push(checkBlock({ ...(value.thinking as object), type: 'thinking' }, index))
    if (value.text !== undefined) {
      if (typeof value.text !== 'string') bad('`text` must be a string', index)
      blocks.push({ type: 'text', text: value.text })
    }
    if (value.toolUse !== undefined) {
      const calls = Array.isArray(value.toolUse) ? value.toolUse : [value.toolUse]
      for (const c of calls) blocks.push(checkToolUse(c, index))
    }
  }
  if (value.stopReason !== undefined && !STOP_REASONS.includes(value.stopReason as string)) {
    bad(`unknown stopReason ${JSON.stringify(value.stopReason)}`, index)
  }
  const usage = value.usage ?? {}
  if (!isRecord(usage)) bad('`usage` must be an object', index)
  for (const k of [
    'input_tokens',
    'output_tokens',
    'cache_creation_input_tokens',
    'cache_read_input_tokens',
  ]) {
    const x = usage[k]
    if (x !== undefined && (!Number.isInteger(x) || (x as number) < 0))
      bad(`usage.${k} must be an integer ≥ 0`, index)
  }
  const fault = value.fault === undefined ? undefined : checkFault(value.fault, index)
  if (!fault && blocks.length === 0) bad('a reply needs at least one block (or a fault)', index)
  const problem = transportProblem(value.transport)
  if (problem) bad(problem, index)
  return {
    blocks,
    stopReason: value.stopReason as WireStopReason | undefined,
    usage: usage as Partial<WireUsage>,
    fault,
    transport: (value.transport as TransportOptions | undefined) ?? {},
  }
}

/** Hands out replies for a {@link Script}, one call per request. */
export class ScriptRunner {
  private calls = 0

  constructor(private readonly script: Script) {}

  /** Steps not yet used (`Infinity` for a function script). */
  get remaining(): number {
    return typeof this.script === 'function'
      ? Number.POSITIVE_INFINITY
      : Math.max(0, this.script.length - this.calls)
  }

  /** The reply for the next request; throws {@link ScriptExhaustedError} or {@link ScriptFailedError}. */
  async next(request: Omit<ScriptRequest, 'index'>): Promise<NormalizedReply> {
    const index = this.calls++
    const full: ScriptRequest = { ...request, index }
    let step: unknown
    if (typeof this.script === 'function') step = this.script
    else {
      if (index >= this.script.length) {
        throw new ScriptExhaustedError(
          `request ${index + 1} arrived but the script has only ${this.script.length} step(s)`,
          { details: { index, steps: this.script.length } },
        )
      }
      step = this.script[index]
    }
    let value: unknown = step
    if (typeof step === 'function') {
      try {
        value = await (step as (r: ScriptRequest) => unknown)(full)
      } catch (e) {
        throw new ScriptFailedError(
          `script step ${index} threw: ${e instanceof Error ? e.message : String(e)}`,
          {
            cause: e,
            details: { index },
          },
        )
      }
    }
    return normalizeReply(value, index)
  }
}
