// @contextkit/agent-loop/otel: the agent loop's trace as OpenTelemetry spans (GenAI semantic
// conventions). Loads `@opentelemetry/api` (an optional peer); the root entry never does.
export { GEN_AI, OPERATION } from './attributes.js'
export type { OtelTraceOptions } from './otel-trace.js'
export { otelTrace } from './otel-trace.js'
