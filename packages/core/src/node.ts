// `@contextkit/core/node`: the Node-only parts (they write trace files, read small files, open
// files confined to a root and cache what was read).
// The pure API is the package root (src/index.ts); see "Package shape" in the root README.

export type { FileLockOptions } from './file-lock.js'
export {
  FileLockError,
  FileLockIoError,
  FileLockOptionsSchema,
  FileLockTimeoutError,
  lockMsSchema,
  MAX_LOCK_MS,
  UNREADABLE_LOCK_GRACE_MS,
  withFileLock,
} from './file-lock.js'
export type {
  FileReadCache,
  FileReadCacheLookup,
  FileReadCacheOptions,
} from './file-read-cache.js'
export { createFileReadCache } from './file-read-cache.js'
export type { FileStamp } from './file-stamp.js'
export {
  FILE_STAMP_RACY_MS,
  fileStamp,
  sameFileStamp,
  stampIsRacy,
  statStamp,
} from './file-stamp.js'
export type { JsonlTrace, JsonlTraceOptions } from './jsonl-trace.js'
export { jsonlTrace } from './jsonl-trace.js'
export type { FileWithinRoot, OpenWithinRootOptions } from './open-within-root.js'
export { openWithinRoot } from './open-within-root.js'
export type { ProcessIdentity } from './process-identity.js'
export {
  ownerAlive,
  processAlive,
  processIdentity,
  processStartTime,
} from './process-identity.js'
export type {
  ReadTextFileOptions,
  TextFileProblem,
  TextFileRead,
} from './read-text-file.js'
export { readTextFile } from './read-text-file.js'
export { SIDE_FILE_MIN_AGE_MS, sideFileName, sweepAbandonedSideFiles } from './side-files.js'
export type {
  UnsafeWriteReason,
  WithinRootWrite,
  WithinRootWriteOptions,
} from './within-root.js'
export {
  appendWithinRoot,
  appendWithinRootSync,
  mkdirWithinRoot,
  replaceWithinRoot,
  UnsafeWriteError,
  unlinkWithinRoot,
} from './within-root.js'
