// Kept out of message-schemas.ts so that zod-free checks (normal-entry.ts) can use the list.

/** Every `StopReason`, in the order of `StopReasonSchema.options`. */
export const STOP_REASONS = [
  'end_turn',
  'max_tokens',
  'stop_sequence',
  'tool_use',
  'pause_turn',
  'refusal',
  'model_context_window_exceeded',
  /** The caller aborted the run. */
  'aborted',
  /** The call failed; the content holds whatever arrived before the failure. */
  'error',
] as const
