// @contextkit/agent-loop/provider: what a provider shares, for those who write one: the one retry
// policy, overflow classification, SSE reading and the asynchronous token-counter contract. The
// contract itself (`ModelProvider`, `ProviderRequest`, `ProviderEvent`) and the errors a provider
// raises (`ProviderError`, `ContextTooLongError`) come from the package root, where apps use them.
export type { StatedWindow } from './overflow.js'
export { asContextTooLong, isContextTooLong, statedWindow } from './overflow.js'
export type { AttemptOutcome, RetryPolicy } from './retry.js'
export { withRetries } from './retry.js'
export type { SseItem } from './sse-reader.js'
export { SseReader } from './sse-reader.js'
export type {
  AsyncTokenCounter,
  TokenCountPrepareInput,
  TokenCountPrepareResult,
} from './token-count.js'
export { isAsyncTokenCounter } from './token-count.js'
