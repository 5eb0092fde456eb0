export type { AddAnchorOptions, AnchorInput, CaptureOptions, RecordTailOptions } from './capture.js'
export { addAnchor, captureStreamTail, recordStreamTail } from './capture.js'
export {
  StateConflictError,
  StateCorruptError,
  StateIoError,
  StateLockError,
  StateVersionError,
} from './errors.js'
export type { FileLockOptions } from './file-lock.js'
export { withFileLock } from './file-lock.js'
export type { FileStateStoreOptions } from './file-state-store.js'
export { fileStateStore } from './file-state-store.js'
export type { StripInjectedOptions } from './injected-text.js'
export { INJECTED_END, INJECTED_START, markInjected, stripInjected } from './injected-text.js'
export type { Lazy, ResumptionOptions } from './middleware.js'
export {
  RESUMPTION_STATE_KEY,
  RESUMPTION_TRACE_STAGES,
  RESUMPTION_VARS_KEY,
  resumption,
} from './middleware.js'
export type { Anchor, EmptySelfStateOptions, SelfState, StreamTail } from './self-state.js'
export {
  AnchorSchema,
  emptySelfState,
  migrateSelfState,
  SELF_STATE_VERSION,
  SelfStateSchema,
  StreamTailSchema,
} from './self-state.js'
export type { LoadResult, SaveOptions, StateFileOptions } from './state-file.js'
export { loadSelfState, saveSelfState, updateSelfState } from './state-file.js'
export type {
  ResolvedResumption,
  ResumptionContext,
  StalenessOptions,
  TailDropReason,
  WakeUpOptions,
} from './wake-up.js'
export {
  buildResumptionMessage,
  buildResumptionSection,
  resumptionContextFrom,
} from './wake-up.js'
