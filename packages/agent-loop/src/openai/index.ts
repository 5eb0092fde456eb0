// @contextkit/agent-loop/openai: OpenAI chat completions and every server that speaks it (plain fetch).

export { HTTP_ERROR_TYPES } from '../provider/http-errors.js'
export type { ChatBodyWarning } from './chat-body.js'
export { CHAT_BODY_WARNINGS } from './chat-body.js'
export { CHAT_FINISH_REASONS } from './chat-chunks.js'
export type { MaxTokensParam, OpenAIChatProviderOptions } from './chat-provider.js'
export { OPENAI_CHAT_PROVIDER_DEFAULTS, openAIChatProvider } from './chat-provider.js'
