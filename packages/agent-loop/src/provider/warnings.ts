/**
 * Codes of the warnings providers report (`{ type: 'warning' }` provider events) and the token
 * counters they ship. The loop's `AGENT_LOOP_WARNINGS` holds these too, so users compare
 * against one object.
 */
export const PROVIDER_WARNINGS = Object.freeze({
  /** The asynchronous token counter failed; the estimate was used. */
  tokenCountFailed: 'agent_loop_token_count_failed',
  /** A tool call's input stopped mid-stream (the call is refused with an error result). */
  incompleteToolCall: 'agent_loop_incomplete_tool_call',
  /** The Anthropic API sent a stop reason this version does not know (kept as `end_turn`). */
  unknownStopReason: 'agent_loop_unknown_stop_reason',
  /** The Anthropic API sent a content block this version does not know (left out). */
  blockDropped: 'agent_loop_block_dropped',
  /** A completions server sent a `finish_reason` this version does not know. */
  unknownFinishReason: 'agent_loop_unknown_finish_reason',
  /** An OpenAI-compatible chat server sent a `finish_reason` this version does not know. */
  chatUnknownFinishReason: 'openai_unknown_finish_reason',
} as const)
