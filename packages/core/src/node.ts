// `@contextkit/core/node`: the Node-only parts (they write trace files).
// The pure API is the package root (src/index.ts); see "Package shape" in the root README.
export type { JsonlTrace, JsonlTraceOptions } from './jsonl-trace.js'
export { jsonlTrace } from './jsonl-trace.js'
