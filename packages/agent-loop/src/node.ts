// `@contextkit/agent-loop/node`: the Node-only parts (the JSONL session store writes files).
// The pure API is the package root (src/index.ts); see "Package shape" in the root README.
export type { JsonlSessionStore, JsonlSessionStoreOptions } from './session/jsonl-store.js'
export {
  jsonlSessionStore,
  SESSION_FILE_SUFFIX,
  SESSION_LOCK_SUFFIX,
} from './session/jsonl-store.js'
