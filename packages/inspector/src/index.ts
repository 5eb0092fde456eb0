// @contextkit/inspector: a local page over any SessionStore and the loop's run traces.

export type { Decision } from './approvals.js'
export { DecisionSchema } from './approvals.js'
export type { CompositionRecord } from './composition.js'
export {
  COMPOSITION_VERSIONS,
  CompositionRecordSchema,
  compositionDiff,
  compositionView,
} from './composition.js'
export {
  InspectorAssetsError,
  InspectorChangesError,
  InspectorError,
  InspectorListenError,
} from './errors.js'
export type { InspectorHandler } from './handler.js'
export { inspectorHandler } from './handler.js'
export type {
  CompactionView,
  CompositionDiffView,
  CompositionPartView,
  CompositionView,
  OmissionView,
  PendingCall,
  SessionListItem,
  SessionState,
  SessionSummaryView,
  StepsPage,
  StepView,
  ToolCallView,
  UsageFigures,
} from './model.js'
export type {
  InspectorApproval,
  InspectorChanges,
  InspectorOptions,
  InspectorResume,
} from './options.js'
export { InspectorOptionsSchema } from './options.js'
export { CONTENT_SECURITY_POLICY, TOKEN_HEADER } from './security.js'
export type { Inspector } from './start-inspector.js'
export { startInspector } from './start-inspector.js'
export { jsonlTraceDirectory } from './trace-reader.js'
