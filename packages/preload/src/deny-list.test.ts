import { describe, expect, test } from 'vitest'
import { compileDenyList, DEFAULT_DENY_LIST } from './deny-list.js'

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
    const custom = compileDenyList(['config/*.json', 'secrets/', '  ', 'notes*.txt'])
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
