// @contextkit/ai-sdk: contextkit's context middleware inside the Vercel AI SDK's own loop.
export { AiSdkCallError, AiSdkMiddlewareError } from './errors.js'
export type { ContextkitMiddlewareOptions } from './middleware.js'
export { contextkitMiddleware } from './middleware.js'
