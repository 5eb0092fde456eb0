// The pure API of @contextkit/agent-loop: no Node built-ins, safe to bundle for browsers and edge
// runtimes. The Node-only parts are in `@contextkit/agent-loop/node` (src/node.ts).
export type { LimitHistoryOptions } from './history.js'
export {
  IMAGE_TOKENS,
  limitHistory,
  MISSING_TOOL_RESULT_TEXT,
  messageTokens,
  repairOrphans,
} from './history.js'
export { SessionIoError, SessionLockError } from './session/errors.js'
export type { ParsedSessionLines } from './session/lines.js'
export { parseSessionLines, SESSION_WARNING_CODES } from './session/lines.js'
