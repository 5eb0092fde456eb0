// @contextkit/agent-loop/ai-sdk: any Vercel AI SDK LanguageModel as a ModelProvider.
export type { AiSdkLanguageModel, AiSdkProviderOptions } from './ai-sdk-provider.js'
export { aiSdkProvider } from './ai-sdk-provider.js'
export { AI_SDK_FINISH_REASONS } from './ai-sdk-stream.js'
