import { ConfigurationError } from '@contextkit/core'
import picomatch from 'picomatch'

/**
 * Paths refused by default. Patterns are globs as `picomatch` reads them (`*`, `**`, `?`,
 * `[abc]`, `{a,b}`), matched case-insensitively and with dotfiles included:
 * - `name/` (a trailing slash) is a directory: it refuses everything under a directory that
 *   matches — any directory named so when the pattern has no other slash (`.git/` refuses
 *   `vendor/lib/.git/config`), the directory at that path when it has one (`a/b/`);
 * - a pattern with a slash inside matches the whole relative path (`secrets/**`,
 *   `config/*.{key,pem}`; `**\/` also matches no directory at all, so `**\/*.secret.json`
 *   refuses a root-level `x.secret.json`);
 * - any other pattern matches the file name, in any directory (`*.pem`, `id_rsa?`).
 */
export const DEFAULT_DENY_LIST: readonly string[] = Object.freeze([
  '.env',
  '.env.*',
  '.envrc',
  '.git/',
  '.ssh/',
  '.gnupg/',
  '.aws/',
  'id_rsa',
  'id_dsa',
  'id_ecdsa',
  'id_ed25519',
  '*.pem',
  '*.key',
  '*.p12',
  '*.pfx',
  '.netrc',
  '.npmrc',
  '.pgpass',
])

/** A compiled deny list: call it with a normalized relative path's components. */
export type DenyMatcher = (segments: readonly string[]) => string | undefined

/** A deny pattern that cannot be used (empty, a `..` segment, an absolute or NUL-bearing path). */
export class InvalidDenyPatternError extends ConfigurationError {
  /** The `code` of every error of this class: `preload_invalid_deny_pattern`. */
  static override readonly code: string = 'preload_invalid_deny_pattern'
}

interface CompiledRule {
  pattern: string
  kind: 'dir' | 'path' | 'name'
  test: (s: string) => boolean
}

/** picomatch's options for deny patterns: dotfiles match, case does not matter. */
export const DENY_GLOB_OPTIONS = Object.freeze({ dot: true, nocase: true })

function check(raw: unknown): string {
  if (typeof raw !== 'string') {
    throw new InvalidDenyPatternError(`deny pattern ${JSON.stringify(raw)} is not a string`)
  }
  const pattern = raw.trim()
  const why =
    pattern === '' || pattern === '/'
      ? 'it is empty'
      : pattern.includes('\u0000')
        ? 'it contains a NUL character'
        : pattern.split('/').includes('..')
          ? 'a ".." segment can never match a path inside the root'
          : /^([a-z]:|\\\\)/i.test(pattern)
            ? 'it is an absolute Windows path'
            : undefined
  if (why)
    throw new InvalidDenyPatternError(`deny pattern ${JSON.stringify(raw)} is invalid: ${why}`)
  return pattern
}

function compileRule(raw: string): CompiledRule {
  const pattern = check(raw)
  let glob = pattern.replace(/^\/+/, '')
  let kind: CompiledRule['kind']
  if (glob.endsWith('/')) {
    kind = 'dir'
    glob = glob.replace(/\/+$/, '')
  } else kind = glob.includes('/') ? 'path' : 'name'
  try {
    return { pattern: raw, kind, test: picomatch(glob, DENY_GLOB_OPTIONS) }
  } catch (error) {
    throw new InvalidDenyPatternError(
      `deny pattern ${JSON.stringify(raw)} is invalid: ${(error as Error).message}`,
      { cause: error },
    )
  }
}

/**
 * Compile deny patterns (see {@link DEFAULT_DENY_LIST} for the syntax) with `picomatch`. The
 * matcher returns the first pattern that matches, or `undefined`. An invalid pattern throws an
 * {@link InvalidDenyPatternError} here, at once: a deny list never fails open by not matching.
 */
export function compileDenyList(patterns: readonly string[]): DenyMatcher {
  if (!Array.isArray(patterns)) {
    throw new InvalidDenyPatternError('the deny list must be an array of glob patterns')
  }
  const rules = patterns.map(compileRule)
  return (segments) => {
    if (segments.length === 0) return undefined
    const name = segments[segments.length - 1]!
    const whole = segments.join('/')
    for (const rule of rules) {
      if (rule.kind === 'name' && rule.test(name)) return rule.pattern
      if (rule.kind === 'path' && rule.test(whole)) return rule.pattern
      if (rule.kind === 'dir') {
        // every directory the path is inside: by name when the pattern has no slash, by path when it has
        const nameOnly = !rule.pattern.replace(/^\/+/, '').replace(/\/+$/, '').includes('/')
        for (let i = 1; i < segments.length; i++) {
          const dir = nameOnly ? segments[i - 1]! : segments.slice(0, i).join('/')
          if (rule.test(dir)) return rule.pattern
        }
      }
    }
    return undefined
  }
}
