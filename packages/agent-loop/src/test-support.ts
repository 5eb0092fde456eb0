// Test helpers for this package's own tests (not exported).
import Anthropic from '@anthropic-ai/sdk'
import {
  assertSessionId,
  type SessionEntry,
  type SessionLoadResult,
  type SessionStore,
} from '@contextkit/core'
import { SessionEntrySchema } from '@contextkit/core/schemas'
import {
  type AnthropicEmulator,
  type EmulatorModel,
  type Script,
  startAnthropicEmulator,
  type TransportOptions,
} from '@contextkit/testkit'
import { afterEach } from 'vitest'
import { type AnthropicProviderOptions, anthropicProvider } from './anthropic/anthropic-provider.js'
import type { AgentEvent } from './events/events.js'
import type { ModelProvider } from './provider/contract.js'

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

/** Register a cleanup for the end of the current test. */
export function onCleanup(fn: () => Promise<void> | void): void {
  cleanups.push(fn)
}

/** Wire body of a Messages request, as recorded by the emulator. */
export interface WireBody {
  model: string
  system?: Array<{ type: 'text'; text: string; cache_control?: unknown }>
  messages: Array<{
    role: 'user' | 'assistant'
    content: string | Array<Record<string, unknown> & { type: string; text?: string }>
  }>
  tools?: Array<{ name: string }>
  stop_sequences?: string[]
  thinking?: { type: string; budget_tokens: number }
  max_tokens: number
}

/** The emulator, a real SDK client pointed at it, and an `anthropicProvider` over that client. */
export async function emulated(
  script: Script,
  options: {
    models?: EmulatorModel[]
    transport?: TransportOptions
    provider?: Omit<AnthropicProviderOptions, 'client'>
    sdkRetries?: number
  } = {},
): Promise<{
  emulator: AnthropicEmulator
  client: Anthropic
  provider: ModelProvider
  bodies(): WireBody[]
}> {
  const emulator = await startAnthropicEmulator({
    script,
    ...(options.models ? { models: options.models } : {}),
    ...(options.transport ? { transport: options.transport } : {}),
  })
  onCleanup(() => emulator.close())
  const client = new Anthropic({
    apiKey: 'test',
    baseURL: emulator.url,
    maxRetries: options.sdkRetries ?? 0,
  })
  const provider = anthropicProvider({ client, retryDelayMs: 1, ...options.provider })
  const bodies = () =>
    emulator.requests.filter((r) => r.path === '/v1/messages').map((r) => r.body as WireBody)
  return { emulator, client, provider, bodies }
}

/** Text of a wire message (string content or text blocks). */
export function wireText(message: WireBody['messages'][number] | undefined): string {
  if (!message) return ''
  if (typeof message.content === 'string') return message.content
  return message.content.map((b) => (typeof b.text === 'string' ? b.text : '')).join('')
}

/** Drain an event stream into an array. */
export async function collect(events: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const out: AgentEvent[] = []
  for await (const e of events) out.push(e)
  return out
}

/**
 * A tiny in-memory `SessionStore` written against core's interface (validates entries, batches
 * all-or-nothing), for tests of `runAgent({ session })` that do not need files.
 */
export function memorySessionStore(): SessionStore & { data: Map<string, SessionEntry[]> } {
  const data = new Map<string, SessionEntry[]>()
  return {
    data,
    async load(id): Promise<SessionLoadResult> {
      assertSessionId(id, 'memorySessionStore.load')
      return { entries: structuredClone(data.get(id) ?? []), warnings: [] }
    },
    async append(id, entries) {
      assertSessionId(id, 'memorySessionStore.append')
      const checked = entries.map((e) => SessionEntrySchema.parse(e))
      data.set(id, [...(data.get(id) ?? []), ...structuredClone(checked)])
    },
    async list() {
      return [...data.keys()].sort()
    },
    async delete(id) {
      return data.delete(id)
    },
  }
}
