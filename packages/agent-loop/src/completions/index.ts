// @contextkit/agent-loop/completions: OpenAI-compatible text-completion servers (plain fetch).
export { FINISH_REASONS } from './completion-chunks.js'
export { COMPLETIONS_ERROR_TYPES } from './completion-errors.js'
export type { OpenAICompatibleCompletionsProviderOptions } from './completions-provider.js'
export { openAICompatibleCompletionsProvider } from './completions-provider.js'
export type { ScanResult } from './stop-scanner.js'
export { StopScanner } from './stop-scanner.js'
