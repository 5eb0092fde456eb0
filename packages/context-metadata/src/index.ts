// The pure API of @contextkit/context-metadata: no Node built-ins, safe to bundle for browsers and edge
// runtimes. The Node-only parts are in `@contextkit/context-metadata/node` (src/node.ts).
export { ANALYZE_DEFAULTS } from './analysis.js'
export { analyzeContext } from './analyze-context.js'
export { formatFromExtension } from './detect.js'
export { AnalysisAbortedError, ContextFileReadError, ContextFileTypeError } from './errors.js'
export { fieldPath } from './fields.js'
export type { HintOptions } from './hint.js'
export { formatContextHint, formatCount, HINT_DEFAULTS, sanitizeForPrompt } from './hint.js'
export type { LineCount } from './lines.js'
export { countLines, LineCounter } from './lines.js'
export type { JsonCounts, RecordCounter } from './record-counters.js'
export { CsvRecordCounter, JsonRecordCounter, NonBlankLineCounter } from './record-counters.js'
export type {
  AnalyzeOptions,
  ContextFormat,
  ContextMetadata,
  ContextWarning,
  ContextWarningCode,
  LineEnding,
  RecordArray,
} from './types.js'
export { CONTEXT_FORMATS } from './types.js'
