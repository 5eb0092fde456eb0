import fc from 'fast-check'
import picomatch from 'picomatch'
import { describe, expect, test } from 'vitest'
import {
  compileDenyList,
  DEFAULT_DENY_LIST,
  DENY_GLOB_OPTIONS,
  InvalidDenyPatternError,
} from './deny-list.js'

const deny = compileDenyList(DEFAULT_DENY_LIST)
const seg = (p: string) => p.split('/')

describe('deny list', () => {
  test.each([
    ['.env', '.env'],
    ['app/.env.production', '.env.*'],
    ['.git/HEAD', '.git/'],
    ['vendor/lib/.git/config', '.git/'],
    ['home/.ssh/config', '.ssh/'],
    ['keys/id_ed25519', 'id_ed25519'],
    ['certs/Server.PEM', '*.pem'],
    ['tls/private.key', '*.key'],
  ])('%s is denied by %s', (p, pattern) => {
    expect(deny(seg(p))).toBe(pattern)
  })

  test.each([
    'src/env.ts',
    'docs/dotenv.md',
    'src/keyboard.ts',
    'id_rsa.pub',
    '.github/workflows/ci.yml',
    'gitignore',
  ])('%s is allowed', (p) => {
    expect(deny(seg(p))).toBeUndefined()
  })

  test('custom patterns: whole-path globs and directory names', () => {
    const custom = compileDenyList(['config/*.json', 'secrets/', 'notes*.txt'])
    expect(custom(seg('config/db.json'))).toBe('config/*.json')
    expect(custom(seg('app/config/db.json'))).toBeUndefined()
    expect(custom(seg('a/secrets/b.txt'))).toBe('secrets/')
    expect(custom(seg('notes-2024.txt'))).toBe('notes*.txt')
    expect(custom(seg('src/app.ts'))).toBeUndefined()
  })

  test('regex metacharacters in patterns are literal', () => {
    const custom = compileDenyList(['a+b(1).txt'])
    expect(custom(seg('a+b(1).txt'))).toBe('a+b(1).txt')
    expect(custom(seg('aab1.txt'))).toBeUndefined()
  })
})

describe('deny list globs (picomatch)', () => {
  test('the patterns a secrets list uses match what they say', () => {
    const list = compileDenyList([
      'secrets/**',
      '**/*.secret.json',
      'config/*.{key,pem}',
      'id_rsa?',
      'a/b/',
    ])
    expect(list(seg('secrets/prod/db.txt'))).toBe('secrets/**')
    expect(list(seg('secrets/x'))).toBe('secrets/**')
    expect(list(seg('x.secret.json'))).toBe('**/*.secret.json')
    expect(list(seg('deep/er/x.secret.json'))).toBe('**/*.secret.json')
    expect(list(seg('config/server.key'))).toBe('config/*.{key,pem}')
    expect(list(seg('config/server.PEM'))).toBe('config/*.{key,pem}')
    expect(list(seg('keys/id_rsa2'))).toBe('id_rsa?')
    expect(list(seg('a/b/c.txt'))).toBe('a/b/')
    expect(list(seg('a/b/c/d.txt'))).toBe('a/b/')
    expect(list(seg('a/bc/d.txt'))).toBeUndefined()
    expect(list(seg('config/server.crt'))).toBeUndefined()
    expect(list(seg('keys/id_rsa'))).toBeUndefined()
  })

  test.each([[''], ['   '], ['/'], ['../x'], ['a/../../b'], ['C:\\secrets'], ['a\u0000b']])(
    'an invalid pattern %j is an error, never a silent no-match',
    (pattern) => {
      expect(() => compileDenyList([pattern])).toThrow(InvalidDenyPatternError)
    },
  )

  test('property: every pattern decides as picomatch does under the rules (1,000+ patterns and paths)', () => {
    const name = fc.constantFrom(
      'a',
      'b',
      'src',
      'secrets',
      '.env',
      'x.secret.json',
      'id_rsa',
      'id_rsa2',
      'Key.PEM',
      'c.txt',
      'deep',
    )
    const globPart = fc.oneof(
      name,
      fc.constantFrom(
        '*',
        '**',
        '?',
        '*.txt',
        '*.{pem,key}',
        '[a-c]',
        'id_rsa?',
        '.*',
        '*.secret.json',
      ),
    )
    const pattern = fc
      .tuple(fc.array(globPart, { minLength: 1, maxLength: 3 }), fc.boolean())
      .map(([parts, dir]) => `${parts.join('/')}${dir ? '/' : ''}`)
    const path = fc.array(name, { minLength: 1, maxLength: 4 })
    fc.assert(
      fc.property(pattern, path, (p, segments) => {
        const got = compileDenyList([p])(segments) === p
        const glob = p.replace(/\/+$/, '')
        const isMatch = (s: string) => picomatch.isMatch(s, glob, DENY_GLOB_OPTIONS)
        let want: boolean
        if (p.endsWith('/')) {
          const nameOnly = !glob.includes('/')
          want = segments
            .slice(0, -1)
            .some((_, i) => isMatch(nameOnly ? segments[i]! : segments.slice(0, i + 1).join('/')))
        } else if (glob.includes('/')) want = isMatch(segments.join('/'))
        else want = isMatch(segments.at(-1)!)
        expect(got).toBe(want)
      }),
      { numRuns: 1500 },
    )
  })
})
