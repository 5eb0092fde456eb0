// The pure API of @contextkit/preload: no Node built-ins, safe to bundle for browsers and edge
// runtimes. The Node-only parts are in `@contextkit/preload/node` (src/node.ts).
export type { DenyMatcher } from './deny-list.js'
export { compileDenyList, DEFAULT_DENY_LIST, InvalidDenyPatternError } from './deny-list.js'
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
  PreloadRefusalError,
  REFUSAL_CODES,
  ReadFailedError,
  RootUnavailableError,
} from './errors.js'
export { fenceCode, inlineCode, languageFor, longestRun } from './fence.js'
export {
  PRELOAD_TRACE_STAGES,
  PRELOAD_VARS_KEY,
  PRELOADED_FILES_HEADING,
} from './names.js'
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
export type { FileReference, ReferenceSource } from './references.js'
export { BackendMapSchema, collectReferences, SelectionContextSchema } from './references.js'
export { countLines, cutLongLines, lineCutMarker } from './text-lines.js'
