// @contextkit/agent-loop/completions: OpenAI-compatible text-completion servers (plain fetch).

export { HTTP_ERROR_TYPES } from '../provider/http-errors.js'
export { FINISH_REASONS } from './completion-chunks.js'
export type { OpenAICompatibleCompletionsProviderOptions } from './completions-provider.js'
export { openAICompatibleCompletionsProvider } from './completions-provider.js'
export type { ScanResult } from './stop-scanner.js'
export { StopScanner } from './stop-scanner.js'
