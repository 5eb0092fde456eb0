import path from 'node:path'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { anyCodePoints } from '../../../test-utils/arbitraries.js'
import { InvalidPathError, PathOutsideRootError } from './errors.js'
import { checkRelativePath } from './path-checks.js'

describe('checkRelativePath', () => {
  test('normalizes ./, empty components and inner ..', () => {
    expect(checkRelativePath('./src//x/../app.ts')).toEqual({
      path: 'src/app.ts',
      segments: ['src', 'app.ts'],
    })
  })

  test('counts length limits in UTF-8 bytes', () => {
    const name = 'é'.repeat(128) // 256 bytes, 128 UTF-16 units
    const r = checkRelativePath(name)
    expect(InvalidPathError.isInstance(r) && r.details.reason).toBe('component_too_long')
    expect('segments' in checkRelativePath(name, { maxComponentBytes: 256 })).toBe(true)
    const r2 = checkRelativePath('a/b.txt', { maxPathBytes: 4 })
    expect(InvalidPathError.isInstance(r2) && r2.details.reason).toBe('path_too_long')
  })

  test('device names are refused case-insensitively, with or without extensions', () => {
    for (const name of ['con', 'Prn.txt', 'aux.md', 'NUL', 'com9.log', 'lpt5', 'CONIN$', 'COM¹']) {
      const r = checkRelativePath(`dir/${name}`)
      expect(InvalidPathError.isInstance(r) && r.details.reason, name).toBe('device_name')
    }
    // names that only start with two dots are file names, not the parent
    for (const name of ['..#', '..foo', 'src/..x']) {
      const r = checkRelativePath(name)
      expect('segments' in r && r.path, name).toBe(name)
    }
    for (const name of ['console.ts', 'nullable.ts', 'com10.txt', 'lpt.txt', 'auxiliary']) {
      expect('segments' in checkRelativePath(name), name).toBe(true)
    }
  })

  test('property: accepted paths are relative, normalized and resolve inside any root', () => {
    const part = fc.oneof(
      fc.constantFrom('.', '..', '', 'src', 'a.ts', 'CON', 'x:y', 'a.', 'b ', '\\', 'C:'),
      fc.string({ maxLength: 12 }),
    )
    fc.assert(
      fc.property(fc.array(part, { maxLength: 8 }), fc.boolean(), (parts, leadingSlash) => {
        const input = (leadingSlash ? '/' : '') + parts.join('/')
        const r = checkRelativePath(input)
        if (!('segments' in r)) {
          expect(InvalidPathError.isInstance(r) || PathOutsideRootError.isInstance(r)).toBe(true)
          return
        }
        const root = '/some/root'
        const resolved = path.posix.resolve(root, r.path)
        const rel = path.posix.relative(root, resolved)
        expect(rel).toBe(r.path)
        // inside the root: not the parent itself nor under it (a name like `..#` is a file name)
        expect(rel === '..' || rel.startsWith('../')).toBe(false)
        expect(r.path.includes('\\')).toBe(false)
        expect(r.path.includes(':')).toBe(false)
        expect(r.segments.every((s) => s !== '.' && s !== '..' && s !== '')).toBe(true)
        expect(r.segments.every((s) => !/[. ]$/.test(s))).toBe(true)
      }),
      { numRuns: 2000 },
    )
  })

  test('property: the check is total (never throws) on arbitrary strings', () => {
    fc.assert(
      fc.property(anyCodePoints({ maxLength: 300 }), (s) => {
        const r = checkRelativePath(s)
        expect(r).toBeDefined()
      }),
      { numRuns: 2000 },
    )
  })
})

test('never throws, whatever it is given (a null-prototype object included)', () => {
  for (const value of [Object.create(null), null, undefined, 42, {}, [], Symbol('x')]) {
    const result = checkRelativePath(value)
    expect('code' in result && result.code).toBe('preload_invalid_path')
  }
})

describe('checkRelativePath never throws (documented)', () => {
  test('a null-prototype object, a throwing proxy, null limits: typed results', () => {
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('trap')
        },
        getPrototypeOf() {
          throw new Error('trap')
        },
      },
    )
    for (const value of [Object.create(null), hostile, Symbol('s')]) {
      for (const limits of [undefined, null, hostile, Object.create(null)]) {
        const found = checkRelativePath(value, limits as never)
        expect(InvalidPathError.isInstance(found)).toBe(true)
      }
    }
    expect(checkRelativePath('a/b', null as never)).toEqual({ path: 'a/b', segments: ['a', 'b'] })
  })
})
