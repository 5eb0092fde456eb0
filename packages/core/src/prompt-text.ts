import { assertString, toText } from './errors.js'
/**
 * Characters that must never reach a prompt raw from untrusted text (file names, data values):
 * C0 and C1 controls (NEL U+0085 included), the line and paragraph separators U+2028/U+2029,
 * zero-width characters and marks (U+200B–U+200F), bidirectional embeddings, overrides and
 * isolates (U+202A–U+202E, U+2066–U+2069), the word joiner and invisible operators
 * (U+2060–U+2064) and the byte-order mark U+FEFF. Each can break a line, reorder what a reader
 * sees, or hide text.
 */
export const PROMPT_UNSAFE_CHARS: RegExp =
  /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/

const UNSAFE_GLOBAL = new RegExp(PROMPT_UNSAFE_CHARS.source, 'g')

/** The `\uXXXX` escape of one UTF-16 unit. */
function escapeUnit(c: string): string {
  return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`
}

/**
 * `text` with every {@link PROMPT_UNSAFE_CHARS} character written as a visible `\uXXXX` escape and
 * lone surrogates as U+FFFD, so an untrusted string (a file name, a field) shows on one line
 * exactly as it is, and cannot fake a line break, reorder text or hide characters. Pure; never
 * throws (non-strings are converted with `String`, or described when they cannot be).
 */
export function escapeForPrompt(text: string): string {
  const s = toText(text)
  return s.toWellFormed().replace(UNSAFE_GLOBAL, escapeUnit)
}

/** Whether `text` holds any {@link PROMPT_UNSAFE_CHARS} character. */
export function hasPromptUnsafeChars(text: string): boolean {
  assertString(text, 'hasPromptUnsafeChars', 'text')
  return PROMPT_UNSAFE_CHARS.test(text)
}
