// `@contextkit/preload/node`: the Node-only parts (they read files from disk).
// The pure API is the package root (src/index.ts); see "Package shape" in the root README.
export type { BootstrapFiles, BootstrapOptions, TruncatedFile } from './bootstrap.js'
export {
  DEFAULT_BOOTSTRAP_FILES,
  loadBootstrapFiles,
  PROJECT_CONTEXT_HEADING,
  truncateHeadTail,
} from './bootstrap.js'
export type { PreloadOptions, ReferenceSourceOption } from './middleware.js'
export { preload } from './middleware.js'
export {
  PRELOAD_TRACE_STAGES,
  PRELOAD_VARS_KEY,
  PRELOADED_FILES_HEADING,
} from './names.js'
export type { PreloadedFiles, PreloadFilesOptions, SkippedFile } from './preloaded-files.js'
export {
  buildPreloadedFiles,
  preloadSectionId,
  renderPreloadedFile,
} from './preloaded-files.js'
export type { FileText, ReadLimits, ReadResult } from './read-within-root.js'
export { BINARY_SNIFF_BYTES, readWithinRoot } from './read-within-root.js'
