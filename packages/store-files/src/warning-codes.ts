/**
 * The `code` of every {@link @contextkit/core#SessionWarning} the JSONL store reports on load. Stores of other
 * kinds are encouraged to use the same codes for the same situations.
 */
export const SESSION_WARNING_CODES = {
  /** The last line has no newline and is not a whole entry: a write was cut off. Skipped. */
  tornLine: 'session_torn_line',
  /** A line in the middle is not JSON (or not UTF-8). Skipped; the lines around it are kept. */
  corruptLine: 'session_corrupt_line',
  /** A line is JSON but not a valid entry. Skipped; the lines around it are kept. */
  invalidEntry: 'session_invalid_entry',
  /**
   * A line is longer than core's `SESSION_ENTRY_MAX_BYTES` (the store never writes one: something
   * else did). Skipped without being held in memory; the lines around it are kept.
   */
  lineTooLong: 'session_line_too_long',
  /** The header names a newer format version than this package writes; entries read as far as possible. */
  newerVersion: 'session_newer_version',
} as const
