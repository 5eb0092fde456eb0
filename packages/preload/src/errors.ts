import { ContextkitError } from '@contextkit/core'

/**
 * Base class of every refusal {@link readWithinRoot} reports. Refusals are returned as values
 * (`{ ok: false, error }`), never thrown; classify them by class (`PathOutsideRootError.isInstance`,
 * `PreloadRefusalError.isInstance` for any of them) or by `code` (each starts with `preload_`).
 * All refusals are `recoverable`: the file is simply not brought into the prompt.
 */
export class PreloadRefusalError extends ContextkitError {
  /** The `code` of every error of this class: `preload_refusal`. */
  static override readonly code: string = 'preload_refusal'
}

/** The path string is malformed or not portable (details.reason says why). Code `preload_invalid_path`. */
export class InvalidPathError extends PreloadRefusalError {
  /** The `code` of every error of this class: `preload_invalid_path`. */
  static override readonly code: string = 'preload_invalid_path'
}

/**
 * The path is absolute, escapes the root with `..`, or resolves (through a symlink, final or
 * intermediate) outside the root. Code `preload_path_outside_root`.
 */
export class PathOutsideRootError extends PreloadRefusalError {
  /** The `code` of every error of this class: `preload_path_outside_root`. */
  static override readonly code: string = 'preload_path_outside_root'
}

/** The path matches the deny list (`.env*`, `.git/`, private keys, …). Code `preload_path_denied`. */
export class PathDeniedError extends PreloadRefusalError {
  /** The `code` of every error of this class: `preload_path_denied`. */
  static override readonly code: string = 'preload_path_denied'
}

/** Nothing exists at the path (or a parent is not a directory). Code `preload_file_not_found`. */
export class FileNotFoundError extends PreloadRefusalError {
  /** The `code` of every error of this class: `preload_file_not_found`. */
  static override readonly code: string = 'preload_file_not_found'
}

/** The path is a directory, FIFO, socket or device, not a regular file. Code `preload_not_a_file`. */
export class NotAFileError extends PreloadRefusalError {
  /** The `code` of every error of this class: `preload_not_a_file`. */
  static override readonly code: string = 'preload_not_a_file'
}

/** The file has more bytes (or, in preloading, more lines) than allowed. Code `preload_file_too_large`. */
export class FileTooLargeError extends PreloadRefusalError {
  /** The `code` of every error of this class: `preload_file_too_large`. */
  static override readonly code: string = 'preload_file_too_large'
}

/** A NUL byte appears in the first 8 KB. Code `preload_binary_file`. */
export class BinaryFileError extends PreloadRefusalError {
  /** The `code` of every error of this class: `preload_binary_file`. */
  static override readonly code: string = 'preload_binary_file'
}

/** The bytes are not valid UTF-8 (reported, never replaced with U+FFFD). Code `preload_invalid_utf8`. */
export class InvalidUtf8Error extends PreloadRefusalError {
  /** The `code` of every error of this class: `preload_invalid_utf8`. */
  static override readonly code: string = 'preload_invalid_utf8'
}

/** The root itself cannot be resolved (missing, not a directory). Code `preload_root_unavailable`. */
export class RootUnavailableError extends PreloadRefusalError {
  /** The `code` of every error of this class: `preload_root_unavailable`. */
  static override readonly code: string = 'preload_root_unavailable'
}

/** Any other OS error while opening or reading (permissions, I/O). Code `preload_read_failed`. */
export class ReadFailedError extends PreloadRefusalError {
  /** The `code` of every error of this class: `preload_read_failed`. */
  static override readonly code: string = 'preload_read_failed'
}

/** Every refusal code {@link readWithinRoot} can report. */
export const REFUSAL_CODES: readonly string[] = Object.freeze([
  InvalidPathError.code,
  PathOutsideRootError.code,
  PathDeniedError.code,
  FileNotFoundError.code,
  NotAFileError.code,
  FileTooLargeError.code,
  BinaryFileError.code,
  InvalidUtf8Error.code,
  RootUnavailableError.code,
  ReadFailedError.code,
])

/**
 * `true` when `value` is any refusal of this package, also across duplicated package copies
 * (checks the contextkit marker and the code, not the prototype chain).
 */
export function isPreloadRefusal(value: unknown): value is PreloadRefusalError {
  return ContextkitError.isInstance(value) && REFUSAL_CODES.includes(value.code)
}
