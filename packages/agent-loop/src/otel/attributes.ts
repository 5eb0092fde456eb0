import type { Attributes } from '@opentelemetry/api'

/**
 * The OpenTelemetry GenAI semantic-convention attribute names {@link otelTrace} sets (kept here
 * as strings: the conventions package marks them experimental, so it is not a dependency).
 */
export const GEN_AI = Object.freeze({
  operation: 'gen_ai.operation.name',
  providerName: 'gen_ai.provider.name',
  requestModel: 'gen_ai.request.model',
  requestMaxTokens: 'gen_ai.request.max_tokens',
  responseId: 'gen_ai.response.id',
  responseModel: 'gen_ai.response.model',
  conversationId: 'gen_ai.conversation.id',
  agentName: 'gen_ai.agent.name',
  finishReasons: 'gen_ai.response.finish_reasons',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  cacheReadTokens: 'gen_ai.usage.cache_read.input_tokens',
  cacheCreationTokens: 'gen_ai.usage.cache_creation.input_tokens',
  toolName: 'gen_ai.tool.name',
  toolCallId: 'gen_ai.tool.call.id',
  toolType: 'gen_ai.tool.type',
  toolDescription: 'gen_ai.tool.description',
  toolCallArguments: 'gen_ai.tool.call.arguments',
  errorType: 'error.type',
  serverAddress: 'server.address',
  serverPort: 'server.port',
} as const)

/** Values of `gen_ai.operation.name` the spans use. */
export const OPERATION = Object.freeze({
  invokeAgent: 'invoke_agent',
  chat: 'chat',
  executeTool: 'execute_tool',
} as const)

const count = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0)

/**
 * Token attributes of a usage record. `gen_ai.usage.input_tokens` counts every input token, the
 * cached ones included (as the conventions ask); the loop's `input` is the uncached part only.
 */
export function usageAttributes(usage: { [k: string]: unknown }): Attributes {
  const cacheRead = count(usage.cacheRead)
  const cacheWrite = count(usage.cacheWrite)
  return {
    [GEN_AI.inputTokens]: count(usage.input) + cacheRead + cacheWrite,
    [GEN_AI.outputTokens]: count(usage.output),
    [GEN_AI.cacheReadTokens]: cacheRead,
    [GEN_AI.cacheCreationTokens]: cacheWrite,
  }
}

/** The default port of a URL's scheme, as `URL` leaves it out of `port`. */
const DEFAULT_PORTS: Readonly<Record<string, number>> = { 'https:': 443, 'http:': 80 }

/** `server.address` and `server.port` of a base URL (none when it does not parse). */
export function serverAttributes(baseUrl: string | undefined): Attributes {
  if (baseUrl === undefined || !URL.canParse(baseUrl)) return {}
  const url = new URL(baseUrl)
  const port = url.port === '' ? DEFAULT_PORTS[url.protocol] : Number(url.port)
  // an IPv6 host comes bracketed in `hostname`; the conventions want the address alone
  const address = url.hostname.replace(/^\[(.*)\]$/, '$1')
  return {
    [GEN_AI.serverAddress]: address,
    ...(port === undefined ? {} : { [GEN_AI.serverPort]: port }),
  }
}
