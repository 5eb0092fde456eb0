// @contextkit/ai-sdk: contextkit's context middleware inside the Vercel AI SDK's own loop, and a
// contextkit run as the AI SDK UI's message stream.
export { AiSdkCallError, AiSdkMiddlewareError } from './errors.js'
export { contextkitMiddleware } from './middleware.js'
export type { ContextkitMiddlewareOptions } from './options.js'
export type {
  ContextkitRunMetadata,
  RunEventLike,
  ToUIMessageStreamOptions,
  UIStreamableRun,
} from './ui-message-stream.js'
export { toUIMessageStream, toUIMessageStreamResponse } from './ui-message-stream.js'
