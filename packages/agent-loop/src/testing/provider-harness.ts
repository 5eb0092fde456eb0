import {
  getModelInfo,
  type ImageBlock,
  type Message,
  type ModelInfo,
  textMessage,
} from '@contextkit/core'
import type { Formatter } from '@contextkit/formatters'
import * as z from 'zod'
import type { AgentEvent, AgentResult } from '../events/events.js'
import type { ModelProvider } from '../provider/contract.js'
import { runAgent } from '../run/run-agent.js'
import { type AgentTool, defineTool } from '../tools/define-tool.js'

/** A request as the emulator recorded it (testkit's `RecordedRequest`, the fields read here). */
export interface ConformanceRequest {
  /** The request path, e.g. `/v1/messages`. */
  path: string
  /** The parsed JSON body. */
  body: unknown
  /** The body as sent. */
  rawBody: string
}

/** A running emulator (testkit's `AnthropicEmulator`, the fields read here). */
export interface ConformanceEmulator {
  /** The emulator's base URL (`http://127.0.0.1:<port>`). */
  readonly url: string
  /** Every request received so far, in order. */
  readonly requests: readonly ConformanceRequest[]
  /** Stop the emulator. */
  close(): Promise<void>
}

/** Starts an emulator from a script: pass testkit's `startAnthropicEmulator`. */
export type StartConformanceEmulator = (options: {
  script: unknown
  transport?: Record<string, unknown>
}) => Promise<ConformanceEmulator>

/** Makes the provider under test, pointed at the emulator (`{url}` for the Anthropic SDK, `{url}/v1` for OpenAI-style servers). */
export type MakeConformanceProvider = (emulator: {
  url: string
}) => ModelProvider | Promise<ModelProvider>

/** What the provider (with its server) can do; checks of what it cannot are skipped. Each defaults to `true`. */
export interface ProviderCapabilities {
  /** Streams thinking (reasoning) as thinking deltas. */
  thinking?: boolean
  /** Sends images in user messages. */
  images?: boolean
  /** Sends images returned by tools. */
  imageToolResults?: boolean
  /** Reports prompt-cache reads for a repeated prompt. */
  cachedTokens?: boolean
  /** Retries a stream that failed mid-way by itself. */
  streamRetries?: boolean
  /** Retries a request answered 429 (or 5xx) by itself. */
  httpRetries?: boolean
}

/** A tool call the scripted model makes. */
export interface ScriptedCall {
  /** The tool to call. */
  name: string
  /** The call's arguments. */
  input: Record<string, unknown>
}

/** Options of `providerConformance`. */
export interface ProviderConformanceOptions {
  /** Starts the emulator the provider talks to: testkit's `startAnthropicEmulator`. */
  startEmulator: StartConformanceEmulator
  /** The model of every run. Default `claude-haiku-4-5`. */
  model?: string | ModelInfo
  /** The loop's formatter. Default: the loop's (`NativeFormatter`). */
  formatter?: Formatter
  /**
   * How a scripted tool call is written when the provider's format puts calls in the text (a
   * ChatML or completions format): the text the model would say. Default: native tool calls.
   */
  toolCallText?: (calls: readonly ScriptedCall[]) => string
  /** What the provider supports (default: everything). */
  supports?: ProviderCapabilities
}

/** A neutral reply of the scripted model, turned into an emulator step per the options. */
export interface ScriptedReply {
  text?: string
  thinking?: string
  calls?: ScriptedCall[]
  stopReason?: string
  fault?: Record<string, unknown>
  transport?: Record<string, unknown>
}

/** One check's world: the options, the emulator and provider it starts, tools that count their runs. */
export class ConformanceHarness {
  readonly runs: Record<string, number> = {}
  readonly model: ModelInfo
  #emulators: ConformanceEmulator[] = []

  constructor(
    readonly make: MakeConformanceProvider,
    readonly options: ProviderConformanceOptions,
  ) {
    const m = options.model ?? 'claude-haiku-4-5'
    this.model = typeof m === 'string' ? getModelInfo(m) : m
  }

  /** `reply` as an emulator step: native `toolUse`, or calls written into the text. */
  step(reply: ScriptedReply): Record<string, unknown> {
    const calls = reply.calls ?? []
    const asText = this.options.toolCallText
    const text = asText && calls.length > 0 ? `${reply.text ?? ''}${asText(calls)}` : reply.text
    return {
      ...(text === undefined ? {} : { text }),
      ...(reply.thinking === undefined ? {} : { thinking: reply.thinking }),
      ...(!asText && calls.length > 0 ? { toolUse: calls } : {}),
      ...(reply.stopReason ? { stopReason: reply.stopReason } : {}),
      ...(reply.fault ? { fault: reply.fault } : {}),
      ...(reply.transport ? { transport: reply.transport } : {}),
    }
  }

  /** Starts an emulator answering `replies` in order and the provider pointed at it. */
  async start(
    replies: readonly (ScriptedReply | (() => ScriptedReply))[],
    transport?: Record<string, unknown>,
  ): Promise<{ emulator: ConformanceEmulator; provider: ModelProvider }> {
    const script = replies.map((r) =>
      typeof r === 'function' ? () => this.step(r()) : this.step(r),
    )
    const emulator = await this.options.startEmulator({
      script,
      ...(transport ? { transport } : {}),
    })
    this.#emulators.push(emulator)
    return { emulator, provider: await this.make({ url: emulator.url }) }
  }

  /** A tool that records its runs and answers `output(input)`. */
  tool(
    name: string,
    output: (input: { q: string }) => unknown = ({ q }) => `${name}:${q}`,
  ): AgentTool {
    return defineTool({
      name,
      description: `The ${name} tool of the conformance checks`,
      input: z.object({ q: z.string() }),
      execute: (input) => {
        this.runs[name] = (this.runs[name] ?? 0) + 1
        return output(input) as string
      },
    })
  }

  /** Runs the loop on the provider, collecting every event. */
  async run(
    provider: ModelProvider,
    messages: Message[],
    extra: {
      tools?: AgentTool[]
      system?: string
      signal?: AbortSignal
      maxTokens?: number
      onEvent?: (e: AgentEvent) => void
    } = {},
  ): Promise<{ events: AgentEvent[]; result: AgentResult }> {
    const run = runAgent({
      provider,
      model: this.model,
      messages,
      ...(this.options.formatter ? { formatter: this.options.formatter } : {}),
      ...(extra.tools ? { tools: extra.tools } : {}),
      ...(extra.system ? { system: extra.system } : {}),
      ...(extra.signal ? { signal: extra.signal } : {}),
      ...(extra.maxTokens ? { maxTokens: extra.maxTokens } : {}),
    })
    const events: AgentEvent[] = []
    for await (const e of run.events) {
      events.push(e)
      extra.onEvent?.(e)
    }
    return { events, result: await run.result }
  }

  /** Closes every emulator this check started. */
  async close(): Promise<void> {
    await Promise.all(this.#emulators.splice(0).map((e) => e.close()))
  }
}

/** A user message. */
export const say = (text: string): Message => textMessage('user', text)

/** A 1×1 PNG, as an image block. */
export const TINY_PNG: ImageBlock = {
  type: 'image',
  mediaType: 'image/png',
  data: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
}

/** The requests of the model endpoint (not `/v1/models` or token counting). */
export function modelCalls(emulator: ConformanceEmulator): ConformanceRequest[] {
  return emulator.requests.filter((r) =>
    /\/v1\/(messages|chat\/completions|completions)$/.test(r.path),
  )
}
