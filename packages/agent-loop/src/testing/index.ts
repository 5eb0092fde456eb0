// @contextkit/agent-loop/testing: the loop held to its contracts: providers (conformance), stores
// (resume checks, the durable-run crash matrix) and a scripted provider. The stores' own
// contracts are checked by @contextkit/core/testing.

export type {
  DurableCrashMatrixOptions,
  DurableCrashMatrixResult,
  DurableWorkerArgs,
} from './durable-matrix.js'
export { DURABLE_STATES, durableCrashMatrix, durableWorkerProcess } from './durable-matrix.js'
export type { DurablePause, DurableWorkerOptions } from './durable-worker.js'
export {
  DURABLE_CALLS,
  DURABLE_PAUSES,
  DURABLE_USER_MESSAGE,
  durableScript,
  durableWorker,
} from './durable-worker.js'
export type {
  ProviderCheckResult,
  ProviderConformanceReport,
} from './provider-conformance.js'
export {
  conformanceMatrix,
  PROVIDER_CHECK_NAMES,
  providerConformance,
} from './provider-conformance.js'
export type {
  ConformanceEmulator,
  ConformanceRequest,
  MakeConformanceProvider,
  ProviderCapabilities,
  ProviderConformanceOptions,
  ScriptedCall,
  StartConformanceEmulator,
} from './provider-harness.js'
export type {
  ScriptedProvider,
  ScriptedProviderOptions,
  ScriptedReply,
} from './scripted-provider.js'
export { scriptedProvider } from './scripted-provider.js'
export { sessionResumeChecks } from './session-resume-checks.js'
