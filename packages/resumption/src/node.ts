// `@contextkit/resumption/node`: the Node-only parts (they read, write and lock state files).
// The pure API is the package root (src/index.ts); see "Package shape" in the root README.
export type {
  InternalizeInput,
  InternalizeTool,
  InternalizeToolOptions,
} from './internalize-tool.js'
export { InternalizeInputSchema, internalizeTool } from './internalize-tool.js'
export type { Lazy, ResumptionOptions } from './middleware.js'
export { resumption } from './middleware.js'
export {
  RESUMPTION_STATE_KEY,
  RESUMPTION_TRACE_STAGES,
} from './names.js'
export type { LoadResult } from './state-file.js'
export { loadSelfState, saveSelfState, selfStateFormat, updateSelfState } from './state-file.js'
