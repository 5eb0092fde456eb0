// @contextkit/agent-loop/anthropic: the Anthropic SDK provider (the SDK is an optional peer).
export type { AnthropicProviderOptions } from './anthropic-provider.js'
export { anthropicProvider } from './anthropic-provider.js'
export { toProviderError } from './provider-errors.js'
export type { AnthropicStreamParams } from './request-params.js'
export { toStreamParams } from './request-params.js'
export { AnthropicEventMapper } from './stream-events.js'
