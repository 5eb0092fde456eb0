// The pure API of @contextkit/context-metadata: no Node built-ins, safe to bundle for browsers and edge
// runtimes. The Node-only parts are in `@contextkit/context-metadata/node` (src/node.ts).
export { analyzeContext } from './analyze-context.js'
export { formatFromExtension } from './detect.js'
export { AnalysisAbortedError, ContextFileReadError, ContextFileTypeError } from './errors.js'
export { fieldPath } from './fields.js'
export type { HintOptions } from './hint.js'
export {
  formatContextHint,
  formatCount,
  HINT_DEFAULTS,
  quoteForPrompt,
  sanitizeForPrompt,
} from './hint.js'
export type { JsonCounts } from './json-record-counter.js'
export { JsonRecordCounter } from './json-record-counter.js'
export type { LineCount } from './lines.js'
export { countLines, LineCounter } from './lines.js'
export {
  CONTEXT_METADATA_TRACE_STAGES,
  CONTEXT_METADATA_VARS_KEY,
} from './names.js'
export { ANALYZE_DEFAULTS } from './options.js'
export type { CsvCounterOptions, RecordCounter } from './record-counters.js'
export {
  CsvRecordCounter,
  NdjsonRecordCounter,
  NonBlankLineCounter,
} from './record-counters.js'
export type {
  AnalyzeOptions,
  ContextFormat,
  ContextMetadata,
  ContextWarning,
  ContextWarningCode,
  ElementKind,
  JsonMap,
  LineEnding,
  RecordArray,
  TextKind,
  ValueArray,
} from './types.js'
export { CONTEXT_FORMATS } from './types.js'
