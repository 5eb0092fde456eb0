// `@contextkit/core/node`: the Node-only parts (they write trace files and read small files).
// The pure API is the package root (src/index.ts); see "Package shape" in the root README.
export type { JsonlTrace, JsonlTraceOptions } from './jsonl-trace.js'
export { jsonlTrace } from './jsonl-trace.js'
export type {
  ReadTextFileOptions,
  TextFileProblem,
  TextFileRead,
} from './read-text-file.js'
export { readTextFile } from './read-text-file.js'
export type {
  UnsafeWriteReason,
  WithinRootWrite,
  WithinRootWriteOptions,
} from './within-root.js'
export {
  appendWithinRoot,
  appendWithinRootSync,
  mkdirWithinRoot,
  openWithinRoot,
  replaceWithinRoot,
  UnsafeWriteError,
  unlinkWithinRoot,
} from './within-root.js'
