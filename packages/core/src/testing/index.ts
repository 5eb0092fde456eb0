// @contextkit/core/testing: the conformance kits of the store contracts (`SessionStore`,
// `StateStore`), beside them. Node-only: the checks assert with `node:assert`.

export { freshId, messageEntries, newSession, normalized } from './session-fixtures.js'
export { sessionLeaseChecks, sessionLeaseConformance } from './session-lease-conformance.js'
export { compactionLog, resumeLog } from './session-log-checks.js'
export type { MakeSessionStore } from './session-store-conformance.js'
export { sessionStoreChecks, sessionStoreConformance } from './session-store-conformance.js'
export type { MakeStateStore, StateStoreCheckOptions } from './state-store-conformance.js'
export { stateStoreChecks, stateStoreConformance } from './state-store-conformance.js'
export type { StoreCheck, StoreConformanceReport } from './store-checks.js'
export { StoreConformanceError } from './store-checks.js'
