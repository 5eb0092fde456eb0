// `@contextkit/context-metadata/node`: the Node-only parts (they read files).
// The pure API is the package root (src/index.ts); see "Package shape" in the root README.
export type { AnalyzeFileOptions } from './analyze-file.js'
export { analyzeFile } from './analyze-file.js'
export type { ContextMetadataOptions } from './middleware.js'
export {
  contextMetadata,
  varsRef,
} from './middleware.js'
export {
  CONTEXT_METADATA_TRACE_STAGES,
  CONTEXT_METADATA_VARS_KEY,
} from './names.js'
