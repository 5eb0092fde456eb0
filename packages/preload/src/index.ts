export type { BootstrapFiles, BootstrapOptions, TruncatedFile } from './bootstrap.js'
export {
  DEFAULT_BOOTSTRAP_FILES,
  loadBootstrapFiles,
  PROJECT_CONTEXT_HEADING,
  truncateHeadTail,
} from './bootstrap.js'
export type { DenyMatcher } from './deny-list.js'
export { compileDenyList, DEFAULT_DENY_LIST } from './deny-list.js'
export {
  BinaryFileError,
  FileNotFoundError,
  FileTooLargeError,
  InvalidPathError,
  InvalidUtf8Error,
  isPreloadRefusal,
  NotAFileError,
  PathDeniedError,
  PathOutsideRootError,
  PreloadRefusal,
  PreloadRefusalError,
  REFUSAL_CODES,
  ReadFailedError,
  RootUnavailableError,
} from './errors.js'
export { fenceCode, inlineCode, languageFor, longestRun } from './fence.js'
export type { PreloadOptions, ReferenceSourceOption } from './middleware.js'
export {
  PRELOAD_TRACE_STAGES,
  PRELOAD_VARS_KEY,
  PRELOADED_VAR,
  preload,
} from './middleware.js'
export type { PassLadderParts, PassLadderResult } from './pass-ladder.js'
export {
  fitPassLadder,
  HARD_TRUNCATION_MARKER,
  LADDER_PRIORITIES,
  passLadderSections,
  truncateToTokens,
} from './pass-ladder.js'
export type { CheckedPath, PathLimits, PathProblem } from './path-checks.js'
export { checkRelativePath } from './path-checks.js'
export type { PreloadedFiles, PreloadFilesOptions, SkippedFile } from './preloaded-files.js'
export {
  buildPreloadedFiles,
  preloadSectionId,
  renderPreloadedFile,
} from './preloaded-files.js'
export type { FileText, ReadLimits, ReadResult } from './read-within-root.js'
export { BINARY_SNIFF_BYTES, readWithinRoot } from './read-within-root.js'
export type { FileReference, ReferenceSource } from './references.js'
export { BackendMapSchema, collectReferences, SelectionContextSchema } from './references.js'
export { countLines, cutLongLines, lineCutMarker } from './text-lines.js'
