// @contextkit/agent-loop/testing: conformance checks for store implementations.

export type {
  ScriptedProvider,
  ScriptedProviderOptions,
  ScriptedReply,
} from './scripted-provider.js'
export { scriptedProvider } from './scripted-provider.js'
export type {
  MakeSessionStore,
  SessionStoreCheck,
  SessionStoreConformanceReport,
} from './session-store-conformance.js'
export {
  SessionStoreConformanceError,
  sessionStoreChecks,
  sessionStoreConformance,
} from './session-store-conformance.js'
