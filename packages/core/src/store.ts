// `@contextkit/core/store`: the session log's format, for code that writes or reads its entries
// directly: store implementations, log readers (the inspector), a test or a seed that writes a
// session by hand; the lease protocol a store implements and a runner holds (agent-loop); the
// size rule every store applies at append; the stored text of a trace event. Pure like the root
// (no Node built-in), so it bundles for browsers too, and free of zod like the root: the entry
// schemas a store validates with are in `@contextkit/core/schemas`.
// The contracts (`SessionStore`, `StateStore`), the entry types, `sessionMessages` and the errors
// a store throws to its users stay at the root: an agent's code needs those, never these.
// The rule is in docs/architecture.md ("exports").
export { isNormalSessionEntry } from './normal-entry.js'
export {
  DEFAULT_SESSION_LEASE_TTL_MS,
  describeLeaseHolder,
  hasSessionLeases,
  MAX_SESSION_LEASE_TTL_MS,
} from './session-lease.js'
export {
  acquireSessionLease,
  DEFAULT_SESSION_WAIT_MS,
  keepSessionLease,
} from './session-lease-hold.js'
export { SESSION_ENTRY_MAX_BYTES, sessionEntryText, utf8Length } from './session-size.js'
export { SESSION_FORMAT_VERSION, sessionHeader } from './session-store.js'
export { collectSession } from './session-stream.js'
export { resumeTailBoundary } from './session-tail.js'
export { parseTraceEvent, traceEventText } from './trace-events.js'
