// @contextkit/store-files: the file-backed stores, on one machine's disk (Node-only).
export {
  SessionIoError,
  SessionLockError,
  StateConflictError,
  StateCorruptError,
  StateIoError,
  StateLockError,
} from './errors.js'
export type { FileStateStoreOptions } from './file-state-store.js'
export { fileStateStore } from './file-state-store.js'
export type { JsonlSessionStore, JsonlSessionStoreOptions } from './jsonl-store.js'
export { jsonlSessionStore } from './jsonl-store.js'
export { SESSION_FILE_SUFFIX, SESSION_LOCK_SUFFIX } from './session-files.js'
export { SESSION_LEASE_SUFFIX } from './session-lease.js'
export type {
  Revisioned,
  StateFileLoad,
  StateFileOptions,
  StateFileSaveOptions,
} from './state-file.js'
export {
  loadStateFile,
  StateFileOptionsSchema,
  saveStateFile,
  updateStateFile,
} from './state-file.js'
export { STATE_FILE_MAX_BYTES } from './state-file-io.js'
export type { StateEnvelope, StateFileFormat } from './state-format.js'
export { jsonStateFormat } from './state-format.js'
export { SESSION_WARNING_CODES } from './warning-codes.js'
