/**
 * Paths refused by default, matched case-insensitively:
 * - `name/` matches a directory component anywhere in the path (`.git/` refuses `.git/config`);
 * - a pattern with `/` inside matches the whole relative path;
 * - any other pattern matches the file name. `*` matches any run of characters except `/`.
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

interface CompiledRule {
  pattern: string
  kind: 'dir' | 'path' | 'name'
  re: RegExp
}

function globToRegExp(glob: string): RegExp {
  const body = glob
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('[^/]*')
  return new RegExp(`^${body}$`, 'i')
}

/**
 * Compile deny patterns (see {@link DEFAULT_DENY_LIST} for the syntax). The matcher returns the
 * first pattern that matches, or `undefined`.
 */
export function compileDenyList(patterns: readonly string[]): DenyMatcher {
  const rules: CompiledRule[] = []
  for (const raw of patterns) {
    const pattern = raw.trim()
    if (pattern.length === 0) continue
    if (pattern.endsWith('/')) {
      rules.push({ pattern: raw, kind: 'dir', re: globToRegExp(pattern.slice(0, -1)) })
    } else if (pattern.includes('/')) {
      rules.push({ pattern: raw, kind: 'path', re: globToRegExp(pattern.replace(/^\/+/, '')) })
    } else {
      rules.push({ pattern: raw, kind: 'name', re: globToRegExp(pattern) })
    }
  }
  return (segments) => {
    if (segments.length === 0) return undefined
    const name = segments[segments.length - 1]!
    const whole = segments.join('/')
    for (const rule of rules) {
      if (rule.kind === 'name' && rule.re.test(name)) return rule.pattern
      if (rule.kind === 'path' && rule.re.test(whole)) return rule.pattern
      if (rule.kind === 'dir' && segments.some((s) => rule.re.test(s))) return rule.pattern
    }
    return undefined
  }
}
