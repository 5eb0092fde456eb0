import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import * as z from 'zod'
import {
  assertArray,
  assertFiniteNumber,
  assertObject,
  assertOptions,
  assertString,
  ConfigurationError,
  ContextkitError,
  describeError,
  invalidArgument,
  parseWith,
  ValidationError,
} from './errors.js'

class DiskFullError extends ContextkitError {
  static override readonly code = 'disk_full'
}

describe('ContextkitError', () => {
  test('carries code, recoverable, details and cause', () => {
    const cause = new Error('ENOSPC')
    const e = new DiskFullError('no space left', { recoverable: true, cause, details: { free: 0 } })
    expect(e.code).toBe('disk_full')
    expect(e.name).toBe('DiskFullError')
    expect(e.recoverable).toBe(true)
    expect(e.details).toEqual({ free: 0 })
    expect(e.cause).toBe(cause)
    expect(e).toBeInstanceOf(Error)
  })

  test('defaults: not recoverable, class code, no details', () => {
    const e = new ContextkitError('boom')
    expect(e.code).toBe('contextkit_error')
    expect(e.recoverable).toBe(false)
    expect(e.details).toEqual({})
    expect(e.cause).toBeUndefined()
  })

  test('isInstance works across duplicated package copies (marker symbol, not prototype)', () => {
    // an error made by "another copy" of the package: same global symbol, different class
    const foreign = Object.assign(new Error('x'), {
      [Symbol.for('contextkit.error')]: true,
      code: 'disk_full',
    })
    expect(foreign instanceof ContextkitError).toBe(false)
    expect(ContextkitError.isInstance(foreign)).toBe(true)
    expect(DiskFullError.isInstance(foreign)).toBe(true)
    expect(ConfigurationError.isInstance(foreign)).toBe(false)
  })

  test('subclass isInstance checks the code; base isInstance accepts every subclass', () => {
    const e = new ConfigurationError('bad option')
    expect(ContextkitError.isInstance(e)).toBe(true)
    expect(ConfigurationError.isInstance(e)).toBe(true)
    expect(DiskFullError.isInstance(e)).toBe(false)
    for (const value of [null, undefined, 'error', 42, new Error('plain'), { code: 'disk_full' }]) {
      expect(ContextkitError.isInstance(value)).toBe(false)
    }
  })
})

test('an intermediate base class accepts its subclasses, also across copies', () => {
  class RefusalError extends ContextkitError {
    static override readonly code: string = 'refusal'
  }
  class TooBigError extends RefusalError {
    static override readonly code = 'too_big'
  }
  const e = new TooBigError('file is 9 MB')
  expect(e.kinds).toEqual(['too_big', 'refusal', 'contextkit_error'])
  expect(RefusalError.isInstance(e)).toBe(true)
  expect(TooBigError.isInstance(e)).toBe(true)
  expect(TooBigError.isInstance(new RefusalError('other'))).toBe(false)
  const foreign = JSON.parse(JSON.stringify({ code: 'too_big', kinds: e.kinds }))
  foreign[Symbol.for('contextkit.error')] = true
  expect(RefusalError.isInstance(foreign)).toBe(true)
  // a code given at construction is kept; the class chain still classifies it
  expect(new RefusalError('x', { code: 'custom' }).kinds).toEqual(['refusal', 'contextkit_error'])
})

describe('parseWith', () => {
  const schema = z.object({ name: z.string(), size: z.number().int() })

  test('returns parsed data', () => {
    expect(parseWith(schema, { name: 'a', size: 1 }, 'thing')).toEqual({ name: 'a', size: 1 })
  })

  test('throws a ValidationError naming the thing and each failing path', () => {
    let caught: unknown
    try {
      parseWith(schema, { name: 3, size: 1.5 }, 'thing')
    } catch (e) {
      caught = e
    }
    expect(ValidationError.isInstance(caught)).toBe(true)
    const err = caught as ValidationError
    expect(err.code).toBe('validation_error')
    expect(err.message).toMatch(/^Invalid thing: name: .+; size: .+/)
    expect(err.issues.map((i) => i.path)).toEqual(['name', 'size'])
  })

  test('a root-level failure is reported as (root)', () => {
    expect(() => parseWith(schema, 'nope', 'config')).toThrow(/Invalid config: \(root\): /)
  })
})

test('invalidArgument and assertString throw a ValidationError naming the function and parameter', () => {
  expect(() => invalidArgument('loadThing', 'path', 'a string')).toThrow(
    /^loadThing: path must be a string$/,
  )
  expect(() => invalidArgument('f', 'list', 'an array', null)).toThrow(
    expect.objectContaining({ issues: [{ path: 'list', message: 'expected an array, got null' }] }),
  )
  expect(() => assertString('ok', 'f', 'x')).not.toThrow()
  expect(() => assertString(undefined, 'f', 'x', true)).not.toThrow()
  let caught: unknown
  try {
    assertString(42, 'f', 'x', true)
  } catch (e) {
    caught = e
  }
  expect(ValidationError.isInstance(caught)).toBe(true)
  expect((caught as ValidationError).message).toBe('f: x must be a string or undefined')
  expect((caught as ValidationError).issues).toEqual([
    { path: 'x', message: 'expected a string or undefined, got number' },
  ])
})

test('describeError handles errors, plain values and circular objects', () => {
  expect(describeError(new TypeError('bad'))).toBe('TypeError: bad')
  expect(describeError({ a: 1 })).toBe('Non-error thrown: {"a":1}')
  const circular: Record<string, unknown> = {}
  circular.self = circular
  expect(describeError(circular)).toBe('Non-error thrown: [object Object]')
})

test('an error built from a bad message or options is still a typed error (never a TypeError)', () => {
  const bare = Object.create(null) as never
  const e = new ContextkitError(bare, null as never)
  expect(ContextkitError.isInstance(e)).toBe(true)
  expect(e.message).toBe('[object Object]')
  expect(e.details).toEqual({})
  expect(new ValidationError(42 as never, null as never, 42 as never).issues).toEqual([])
  expect(() => invalidArgument(bare, bare, bare, bare)).toThrow(ValidationError)
})

describe('argument assertions', () => {
  const bad = [null, undefined, 42, '', [], Object.create(null), {}, () => 1, Number.NaN]
  const kinds = (f: (v: unknown) => void) =>
    bad.map((v) => {
      try {
        f(v)
        return 'ok'
      } catch (error) {
        expect(ValidationError.isInstance(error)).toBe(true)
        return (error as ValidationError).message
      }
    })

  test('each accepts exactly its kind and names the function and parameter', () => {
    expect(kinds((v) => assertObject(v, 'f', 'input'))).toEqual([
      'f: input must be an object',
      'f: input must be an object',
      'f: input must be an object',
      'f: input must be an object',
      'f: input must be an object',
      'ok',
      'ok',
      'f: input must be an object',
      'f: input must be an object',
    ])
    expect(kinds((v) => assertOptions(v, 'f')).map((m) => m === 'ok')).toEqual([
      false,
      true,
      false,
      false,
      false,
      true,
      true,
      false,
      false,
    ])
    expect(kinds((v) => assertArray(v, 'f', 'xs')).filter((m) => m === 'ok')).toHaveLength(1)
    expect(kinds((v) => assertFiniteNumber(v, 'f', 'n'))).toEqual([
      'f: n must be a finite number',
      'f: n must be a finite number',
      'ok',
      'f: n must be a finite number',
      'f: n must be a finite number',
      'f: n must be a finite number',
      'f: n must be a finite number',
      'f: n must be a finite number',
      'f: n must be a finite number',
    ])
  })

  test('property: any value either passes or throws a ValidationError naming the parameter', () => {
    fc.assert(
      fc.property(fc.anything({ withNullPrototype: true }), (v) => {
        const checks: Array<(value: unknown, fn: string, param: string) => void> = [
          assertObject,
          assertArray,
          assertFiniteNumber,
          assertString,
        ]
        for (const check of checks) {
          try {
            check(v, 'fn', 'param')
          } catch (error) {
            expect(ValidationError.isInstance(error)).toBe(true)
            expect((error as ValidationError).issues[0]?.path).toBe('param')
          }
        }
      }),
    )
  })
})

describe('assertOptions with keys', () => {
  const keys = { known: ['toolMode', 'namespaces'], renamed: { systemPrompt: 'system' } }
  const refusal = (value: unknown): ValidationError => {
    try {
      assertOptions(value, 'f', 'options', keys)
    } catch (error) {
      if (error instanceof ValidationError) return error
      throw error
    }
    throw new Error('nothing thrown')
  }

  test('an unknown key is refused, typed, naming ours or the near miss', () => {
    expect(refusal({ systemPrompt: 'S' }).message).toBe(
      'f: options: unknown option `systemPrompt`: `systemPrompt` is `system` here',
    )
    expect(refusal({ toolmode: 'xml' }).issues).toEqual([
      { path: 'toolmode', message: 'unknown option `toolmode`: did you mean `toolMode`?' },
    ])
    expect(refusal({ namespace: [] }).message).toContain('did you mean `namespaces`?')
    expect(refusal({ systemPromt: 'S' }).message).toContain('`systemPrompt` is `system` here')
    expect(refusal({ zzz: 1, toolMode: 'xml', qqq: 2 }).issues.map((i) => i.path)).toEqual([
      'zzz',
      'qqq',
    ])
  })

  test('known keys, inherited keys and a Set of keys pass', () => {
    expect(() => assertOptions({ toolMode: 'xml' }, 'f', 'options', keys)).not.toThrow()
    expect(() => assertOptions(Object.create({ zzz: 1 }), 'f', 'options', keys)).not.toThrow()
    expect(() => assertOptions({ a: 1 }, 'f', 'options', { known: new Set(['a']) })).not.toThrow()
    expect(() => assertOptions(undefined, 'f', 'options', keys)).not.toThrow()
  })
})
