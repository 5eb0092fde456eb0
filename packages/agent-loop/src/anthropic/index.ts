// @contextkit/agent-loop/anthropic: the Anthropic SDK provider (the SDK is an optional peer).
export type { AnthropicProviderOptions } from './anthropic-provider.js'
export { ANTHROPIC_PROVIDER_DEFAULTS, anthropicProvider } from './anthropic-provider.js'
export type { ProviderErrorContext } from './provider-errors.js'
export { toProviderError } from './provider-errors.js'
export type {
  AnthropicRefreshModelsOptions,
  AnthropicRefreshModelsResult,
  ModelsClient,
} from './refresh-models.js'
export { refreshModels } from './refresh-models.js'
export type {
  AnthropicStreamParams,
  RequestWarning,
  ToStreamParamsOptions,
} from './request-params.js'
export {
  ANTHROPIC_REQUEST_WARNINGS,
  MAX_CACHE_CONTROL_BLOCKS,
  MIN_THINKING_BUDGET,
  toStreamParams,
} from './request-params.js'
export { AnthropicEventMapper } from './stream-events.js'
export type { AnthropicTokenCounter, AnthropicTokenCounterOptions } from './token-counter.js'
export { anthropicTokenCounter } from './token-counter.js'
