// The pure API of @contextkit/resumption: no Node built-ins, safe to bundle for browsers and edge
// runtimes. The Node-only parts are in `@contextkit/resumption/node` (src/node.ts).
export type { AddAnchorOptions, AnchorInput, CaptureOptions, RecordTailOptions } from './capture.js'
export { addAnchor, captureStreamTail, recordStreamTail } from './capture.js'
export { StateVersionError } from './errors.js'
export type { StripInjectedOptions } from './injected-text.js'
export { INJECTED_END, INJECTED_START, markInjected, stripInjected } from './injected-text.js'
export {
  RESUMPTION_STATE_KEY,
  RESUMPTION_TRACE_STAGES,
} from './names.js'
export type { Anchor, EmptySelfStateOptions, SelfState, StreamTail } from './self-state.js'
export {
  AnchorSchema,
  emptySelfState,
  migrateSelfState,
  SELF_STATE_VERSION,
  SelfStateSchema,
  StreamTailSchema,
} from './self-state.js'
export type {
  ResolvedResumption,
  ResumptionContext,
  StalenessOptions,
  TailDropReason,
  WakeUpOptions,
  WakeUpRender,
} from './wake-up.js'
export {
  buildResumptionMessage,
  buildResumptionSection,
  renderWakeUp,
  resumptionContextFrom,
} from './wake-up.js'
