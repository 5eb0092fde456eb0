// `@contextkit/core/store`: the session log's format, for code that writes or reads its entries
// directly: store implementations, log readers (the inspector), a test or a seed that writes a
// session by hand. Pure like the root (no Node built-in), so it bundles for browsers too.
// The contracts (`SessionStore`, `StateStore`), the entry types, `sessionMessages` and the errors
// a store throws to its users stay at the root: an agent's code needs those, never these.
// The rule is in docs/architecture.md ("exports").
export { isNormalSessionEntry } from './normal-entry.js'
export {
  ApprovalStatusSchema,
  SESSION_FORMAT_VERSION,
  SessionApprovalEntrySchema,
  SessionCompactionEntrySchema,
  SessionCustomEntrySchema,
  SessionEntrySchema,
  SessionHeaderEntrySchema,
  SessionIdSchema,
  SessionMessageEntrySchema,
  sessionHeader,
} from './session-store.js'
export { resumeTailBoundary } from './session-tail.js'
