/**
 * The one check of a path meant to stay inside a root (a workspace, a project), on every OS's
 * rules at once: no NUL or control characters, no absolute, UNC, device or drive-letter paths,
 * no backslashes (so Windows' \\ can never hide a `..`), no `:` (alternate data streams),
 * no characters or device names Windows reserves, no component ending in a dot or space, no
 * `..` past the root; `.` and empty components are dropped. Pure: preload reads files with it
 * and prefill checks its configured file with it.
 */

export interface PathLimits {
  /** Longest accepted path, in UTF-8 bytes. Default `1024`. */
  maxPathBytes?: number
  /** Longest accepted path component, in UTF-8 bytes. Default `255`. */
  maxComponentBytes?: number
}

/** Why a path string was refused. */
export type PathProblem =
  | 'not_a_string'
  | 'empty'
  | 'nul_byte'
  | 'control_character'
  | 'path_too_long'
  | 'component_too_long'
  | 'absolute'
  | 'unc_or_device_prefix'
  | 'backslash'
  | 'drive_letter'
  | 'alternate_data_stream'
  | 'reserved_character'
  | 'device_name'
  | 'trailing_dot_or_space'
  | 'escapes_root'

/** A path that passed {@link inspectRelativePath}: normalized, `/`-separated, inside the root. */
export interface CheckedPath {
  /** Normalized relative path, e.g. `src/app.ts` for `./src/x/../app.ts`. */
  path: string
  /** Its components. */
  segments: string[]
}

/** What {@link inspectRelativePath} found: the normalized path, or the first problem. */
export type PathInspection =
  | ({ ok: true } & CheckedPath)
  | {
      ok: false
      reason: PathProblem
      message: string
      /** The path leaves the root (absolute, or `..` past it), rather than being malformed. */
      outside: boolean
    }

const DEVICE_NAMES = new Set([
  'CON',
  'PRN',
  'AUX',
  'NUL',
  'CONIN$',
  'CONOUT$',
  'CLOCK$',
  ...Array.from({ length: 10 }, (_, i) => `COM${i}`),
  ...Array.from({ length: 10 }, (_, i) => `LPT${i}`),
  'COM¹',
  'COM²',
  'COM³',
  'LPT¹',
  'LPT²',
  'LPT³',
])

const RESERVED_CHARS = /[<>"|?*]/
const CONTROL_CHARS = /[\u0001-\u001f\u007f]/
const DRIVE_LETTER = /^[A-Za-z]:/

const encoder = new TextEncoder()
function utf8Length(text: string): number {
  // Fast path: pure ASCII strings have one byte per UTF-16 unit.
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) > 0x7f) return encoder.encode(text).length
  }
  return text.length
}

/**
 * One limit of `limits`, or `fallback` when it is missing or not a positive number (`NaN`,
 * `'5'`, `-3`), when `limits` is not an object, or when reading it throws (a proxy, a getter):
 * the inspection never throws and never runs without a limit.
 */
function limitOf(limits: unknown, key: keyof PathLimits, fallback: number): number {
  if (typeof limits !== 'object' || limits === null) return fallback
  try {
    const value: unknown = (limits as Record<string, unknown>)[key]
    return typeof value === 'number' && value > 0 && !Number.isNaN(value) ? value : fallback
  } catch {
    return fallback
  }
}

/**
 * Validate a relative path string the same way on every OS, before anything touches disk.
 * Refuses absolute paths, `..` escapes, Windows-only hazards (backslashes, drive letters, UNC and
 * `\\?` prefixes, device names such as `CON` or `com1.txt`, alternate data streams `a:b`,
 * trailing dots or spaces, `<>"|?*`), NUL and control characters, and over-long paths or
 * components. `..` that stays inside (`a/../b`) is folded lexically.
 *
 * Returns `\{ ok: true, path, segments \}` with the normalized path, or
 * `\{ ok: false, reason, message, outside \}` naming the first {@link PathProblem}. Never throws: anything that is not a
 * string is `not_a_string` (a null-prototype object, a proxy, a symbol); a limit that is not a
 * positive number (or `limits` that is not an object) falls back to its default.
 */
export function inspectRelativePath(relPath: unknown, limits: PathLimits = {}): PathInspection {
  const maxPath = limitOf(limits, 'maxPathBytes', 1024)
  const maxComponent = limitOf(limits, 'maxComponentBytes', 255)
  const invalid = (reason: PathProblem, message: string): PathInspection => ({
    ok: false,
    reason,
    message,
    outside: false,
  })
  if (typeof relPath !== 'string') return invalid('not_a_string', 'The path is not a string')
  if (relPath.length === 0) return invalid('empty', 'The path is empty')
  if (relPath.includes('\0')) return invalid('nul_byte', 'The path contains a NUL byte')
  if (CONTROL_CHARS.test(relPath)) {
    return invalid('control_character', 'The path contains a control character')
  }
  if (utf8Length(relPath) > maxPath) {
    return invalid('path_too_long', `The path is longer than ${maxPath} bytes`)
  }
  if (relPath.startsWith('\\\\') || relPath.startsWith('//')) {
    return invalid('unc_or_device_prefix', 'UNC and device (\\\\?\\, \\\\.\\) paths are refused')
  }
  if (relPath.includes('\\')) return invalid('backslash', 'The path contains a backslash')
  if (relPath.startsWith('/')) {
    return { ok: false, reason: 'absolute', message: 'Absolute paths are refused', outside: true }
  }
  if (DRIVE_LETTER.test(relPath)) return invalid('drive_letter', 'The path has a drive letter')

  const segments: string[] = []
  for (const part of relPath.split('/')) {
    if (part === '' || part === '.') continue
    if (part === '..') {
      if (segments.length === 0) {
        return {
          ok: false,
          reason: 'escapes_root',
          message: 'The path escapes the root with ..',
          outside: true,
        }
      }
      segments.pop()
      continue
    }
    if (utf8Length(part) > maxComponent) {
      return invalid('component_too_long', `A path component is longer than ${maxComponent} bytes`)
    }
    if (part.includes(':')) {
      return invalid('alternate_data_stream', 'The path contains ":" (alternate data stream)')
    }
    if (RESERVED_CHARS.test(part)) {
      return invalid('reserved_character', 'The path contains a character reserved on Windows')
    }
    if (part.endsWith('.') || part.endsWith(' ')) {
      return invalid('trailing_dot_or_space', 'A path component ends with a dot or a space')
    }
    const stem = (part.split('.')[0] ?? '').trimEnd().toUpperCase()
    if (DEVICE_NAMES.has(stem)) {
      return invalid('device_name', `"${part}" is a reserved device name on Windows`)
    }
    segments.push(part)
  }
  if (segments.length === 0) return invalid('empty', 'The path names the root itself')
  return { ok: true, path: segments.join('/'), segments }
}
