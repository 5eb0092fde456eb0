import { ContextkitError } from '@contextkit/core'

/** A participant name cannot be rendered (contains `:` or a line break, or is empty). */
export class InvalidParticipantError extends ContextkitError {
  /** The `code` of every error of this class: `formatters_invalid_participant`. */
  static override readonly code: string = 'formatters_invalid_participant'
}

/** `NativeFormatter` in `simple` mode got more than two parties. */
export class TooManyParticipantsError extends ContextkitError {
  /** The `code` of every error of this class: `formatters_too_many_participants`. */
  static override readonly code: string = 'formatters_too_many_participants'
}

/** Content the format cannot carry (an image in a text-only format, …) with `unsupportedMedia: 'error'`. */
export class UnsupportedContentError extends ContextkitError {
  /** The `code` of every error of this class: `formatters_unsupported_content`. */
  static override readonly code: string = 'formatters_unsupported_content'
}

/** Text contains a special-token string of the format (e.g. `<|im_end|>`) with `specialTokens: 'reject'`. */
export class SpecialTokenError extends ContextkitError {
  /** The `code` of every error of this class: `formatters_special_token`. */
  static override readonly code: string = 'formatters_special_token'
}

/**
 * The format always ends the request with an open assistant turn, but the model rejects an
 * assistant prefill (Claude 4.6 and later). Use `NativeFormatter` for such models.
 */
export class PrefillUnsupportedError extends ContextkitError {
  /** The `code` of every error of this class: `formatters_prefill_unsupported`. */
  static override readonly code: string = 'formatters_prefill_unsupported'
}
