import { AgentLoopError } from '../provider/errors.js'

/**
 * What cannot be left out of a request (system prompt, tool definitions and the user message
 * that opens the newest turn) is already larger than the model's context window, so no
 * compaction can make the request fit; the run ends with this error without a call, or after at
 * most one compaction attempt. Code `context_irreducible`.
 */
export class ContextIrreducibleError extends AgentLoopError {
  /** The `code` of every error of this class: `context_irreducible`. */
  static override readonly code: string = 'context_irreducible'
}
