// Public API of @contextkit/agent-loop: filled in by the agent-loop work.
export type { LimitHistoryOptions } from './history.js'
export {
  IMAGE_TOKENS,
  limitHistory,
  MISSING_TOOL_RESULT_TEXT,
  messageTokens,
  repairOrphans,
} from './history.js'
export type { SessionMessageEntriesOptions } from './session/entries.js'
export { lastEntryId, sessionMessageEntries } from './session/entries.js'
export { SessionIoError, SessionLockError } from './session/errors.js'
export type { JsonlSessionStore, JsonlSessionStoreOptions } from './session/jsonl-store.js'
export {
  jsonlSessionStore,
  SESSION_FILE_SUFFIX,
  SESSION_LOCK_SUFFIX,
} from './session/jsonl-store.js'
export type { ParsedSessionLines } from './session/lines.js'
export { parseSessionLines, SESSION_WARNING_CODES } from './session/lines.js'
