// @contextkit/ai-sdk: contextkit's context middleware inside the Vercel AI SDK's own loop.
export { AiSdkCallError, AiSdkMiddlewareError } from './errors.js'
export { OMISSION_NOTICE_ID } from './fit.js'
export type { ContextkitMiddlewareOptions } from './middleware.js'
export { contextkitMiddleware } from './middleware.js'
