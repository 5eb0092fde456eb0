import {
  type CheckedPath,
  inspectRelativePath,
  type PathLimits,
  type PathProblem,
} from '@contextkit/core'
import { InvalidPathError, PathOutsideRootError } from './errors.js'

export type { CheckedPath, PathLimits, PathProblem }

/** A value as text for an error's details, whatever it is (a null-prototype object included). */
function shown(value: unknown): string {
  if (typeof value === 'string') return value
  try {
    return String(value)
  } catch {
    try {
      return Object.prototype.toString.call(value)
    } catch {
      return '[unprintable value]' // a proxy whose every trap throws
    }
  }
}

/**
 * Validate a relative path string the same way on every OS, before anything touches disk (core's
 * `inspectRelativePath`): refuses absolute paths, `..` escapes, Windows-only hazards
 * (backslashes, drive letters, UNC and `\\?` prefixes, device names such as `CON` or `com1.txt`,
 * alternate data streams `a:b`, trailing dots or spaces, `<>"|?*`), NUL and control characters,
 * and over-long paths or components. `..` that stays inside (`a/../b`) is folded lexically.
 *
 * Returns the normalized path, or an {@link InvalidPathError} / {@link PathOutsideRootError}
 * whose `details.reason` is a {@link @contextkit/core#PathProblem}. Never throws, whatever `relPath` is.
 */
export function checkRelativePath(
  relPath: unknown,
  limits: PathLimits = {},
): CheckedPath | InvalidPathError | PathOutsideRootError {
  const found = inspectRelativePath(relPath, limits)
  if (found.ok) return { path: found.path, segments: found.segments }
  const options = { recoverable: true, details: { path: shown(relPath), reason: found.reason } }
  return found.outside
    ? new PathOutsideRootError(found.message, options)
    : new InvalidPathError(found.message, options)
}
