// Small structural checks in the manner of zod, for the code that must not load zod: a package
// root checks its options with these, so that `import('@contextkit/agent-loop')` does not spend
// the 60 ms of zod's module load (issue 46). Each check is a `SafeParser` (`parseWith` takes it),
// lists every problem with its path, and carries its type (`Infer`). No transforms, no defaults:
// a check says yes or no, and what passes is the value as given.
import {
  assertObject,
  assertOptions,
  assertString,
  invalidArgument,
  type SafeParseIssue,
  type SafeParser,
  toText,
  unknownKeyMessage,
} from './errors.js'

/** The kind of a value, as checks name it in messages and unions pick a branch by it. */
export type ValueKind =
  | 'string'
  | 'number'
  | 'boolean'
  | 'bigint'
  | 'symbol'
  | 'undefined'
  | 'function'
  | 'null'
  | 'array'
  | 'object'

/**
 * A check of values of type `T`: a {@link SafeParser} (for `parseWith`) whose issues name every
 * bad path, built from the functions of `@contextkit/core/check` without zod.
 */
export interface Check<T> extends SafeParser<T> {
  /** What a value must be, as the messages say it: `a string`, `an integer ≥ 1`. */
  readonly expected: string
  /** The kinds of value this check can accept (a union picks the branch to report by them). */
  readonly kinds: ReadonlySet<ValueKind>
  /** Whether `value` passes (no issue is built: the fast path). */
  is(value: unknown): value is T
  /**
   * Whether `value` passes; when it does not and `issues` is given, every problem is pushed onto
   * it, its path below `path` (the keys and indexes from the root of the checked value).
   */
  test(value: unknown, path?: readonly PropertyKey[], issues?: SafeParseIssue[]): boolean
}

/** A check that also accepts `undefined`: in an object, its key may be left out. */
export interface OptionalCheck<T> extends Check<T | undefined> {
  /** Marks the key as optional in {@link ObjectOf}. */
  readonly optional: true
}

/** The type a check accepts. */
export type Infer<C> = C extends Check<infer T> ? T : never

/** The checks of an object's keys. */
export type Shape = Readonly<Record<string, Check<unknown>>>

/** The object type a {@link Shape} describes: a key of an {@link OptionalCheck} may be left out. */
export type ObjectOf<S extends Shape> = Flatten<
  {
    -readonly [K in keyof S as S[K] extends OptionalCheck<unknown> ? never : K]: Infer<S[K]>
  } & {
    -readonly [K in keyof S as S[K] extends OptionalCheck<unknown> ? K : never]?: Infer<S[K]>
  }
>

/** `T`'s properties as one object type (an intersection flattened, for readers of the type). */
export type Flatten<T> = { [K in keyof T]: T[K] }

/** A check of objects of shape `S`: its {@link Shape} stays readable (`.shape`). */
export interface ObjectCheck<S extends Shape> extends Check<ObjectOf<S>> {
  /** The check of each key. */
  readonly shape: S
}

type Test = (
  value: unknown,
  path: readonly PropertyKey[] | undefined,
  issues: SafeParseIssue[] | undefined,
) => boolean

const ALL_KINDS: ReadonlySet<ValueKind> = new Set<ValueKind>([
  'string',
  'number',
  'boolean',
  'bigint',
  'symbol',
  'undefined',
  'function',
  'null',
  'array',
  'object',
])

/** Assert that `value` is a {@link Check} (made by this module), else `invalidArgument`. */
function assertCheck(value: unknown, fn: string, param: string): asserts value is Check<unknown> {
  const c = value as Partial<Check<unknown>> | null
  if (
    typeof c !== 'object' ||
    c === null ||
    typeof c.test !== 'function' ||
    typeof c.expected !== 'string' ||
    !(c.kinds instanceof Set)
  ) {
    invalidArgument(fn, param, 'a check (from @contextkit/core/check)', value)
  }
}

/** Assert that `value` is `undefined` or a number (a limit), else `invalidArgument`. */
function assertLimit(value: unknown, fn: string, param: string): void {
  if (value !== undefined && (typeof value !== 'number' || Number.isNaN(value)))
    invalidArgument(fn, param, 'a number or undefined', value)
}

/** The kinds given to {@link custom}, checked. */
function kindSet(kinds: Iterable<ValueKind>): Set<ValueKind> {
  if (!Array.isArray(kinds) && !(kinds instanceof Set))
    invalidArgument('custom', 'kinds', 'an array of value kinds', kinds)
  const set = new Set<ValueKind>()
  for (const kind of kinds) {
    if (!ALL_KINDS.has(kind))
      invalidArgument('custom', 'kinds', `value kinds (${[...ALL_KINDS].join(', ')})`, kind)
    set.add(kind)
  }
  return set
}

/** The kind of `value`: `typeof`, with `null` and arrays told apart from objects. */
export function kindOf(value: unknown): ValueKind {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  return typeof value
}

/** `value` in a message: short primitives as written, anything else by its kind. */
function shown(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return value.length <= 40 ? JSON.stringify(value) : 'a longer string'
    case 'number':
    case 'boolean':
    case 'bigint':
      return String(value)
    case 'undefined':
      return 'undefined'
    case 'object':
      return value === null ? 'null' : Array.isArray(value) ? 'an array' : 'an object'
    default:
      return `a ${typeof value}`
  }
}

function build<T>(expected: string, kinds: ReadonlySet<ValueKind>, test: Test): Check<T> {
  return {
    expected,
    kinds,
    is: (value: unknown): value is T => test(value, undefined, undefined),
    test: (value, path, issues) => test(value, path, issues),
    safeParse(value: unknown) {
      if (test(value, undefined, undefined)) return { success: true, data: value as T }
      const issues: SafeParseIssue[] = []
      test(value, [], issues)
      if (issues.length === 0) issues.push({ path: [], message: `expected ${expected}` })
      return { success: false, error: { issues } }
    },
  }
}

/** Push the issue "expected …, got …" at `path`; always `false`. */
function refuse(
  expected: string,
  value: unknown,
  path: readonly PropertyKey[] | undefined,
  issues: SafeParseIssue[] | undefined,
): false {
  issues?.push({ path: path ?? [], message: `expected ${expected}, got ${shown(value)}` })
  return false
}

/**
 * A check from a predicate: `value` passes when `accepts(value)` is true; else the issue says
 * it expected `expected` (`'a function'`, `'an AbortSignal'`).
 */
export function custom<T>(
  accepts: (value: unknown) => boolean,
  expected: string,
  kinds: Iterable<ValueKind> = ALL_KINDS,
): Check<T> {
  if (typeof accepts !== 'function') invalidArgument('custom', 'accepts', 'a function', accepts)
  assertString(expected, 'custom', 'expected')
  return build<T>(expected, kindSet(kinds), (value, path, issues) =>
    accepts(value) ? true : refuse(expected, value, path, issues),
  )
}

/** Any value at all (`record(unknown())` is an object of anything). */
export function unknown(): Check<unknown> {
  return build<unknown>('anything', ALL_KINDS, () => true)
}

/** Limits of {@link string}. */
export interface StringLimits {
  /** Fewest characters (UTF-16 code units, as `length` counts). */
  min?: number
  /** Most characters. */
  max?: number
  /** A pattern the whole string must match, and what it means in the message. */
  pattern?: { regex: RegExp; message: string }
}

/** A string, within `limits`. */
export function string(limits: StringLimits = {}): Check<string> {
  assertOptions(limits, 'string', 'limits')
  const { min, max, pattern } = limits ?? {}
  assertLimit(min, 'string', 'limits.min')
  assertLimit(max, 'string', 'limits.max')
  if (
    pattern !== undefined &&
    !(pattern?.regex instanceof RegExp && typeof pattern.message === 'string')
  )
    invalidArgument('string', 'limits.pattern', '{ regex: RegExp, message: string }', pattern)
  const expected =
    min === 1 && max === undefined
      ? 'a non-empty string'
      : min !== undefined && max !== undefined
        ? `a string of ${min} to ${max} characters`
        : min !== undefined
          ? `a string of at least ${min} characters`
          : max !== undefined
            ? `a string of at most ${max} characters`
            : 'a string'
  return build<string>(expected, new Set(['string']), (value, path, issues) => {
    if (typeof value !== 'string') return refuse(expected, value, path, issues)
    if ((min !== undefined && value.length < min) || (max !== undefined && value.length > max))
      return refuse(expected, value, path, issues)
    if (pattern && !pattern.regex.test(value)) {
      issues?.push({ path: path ?? [], message: pattern.message })
      return false
    }
    return true
  })
}

/** Limits of {@link number}. */
export interface NumberLimits {
  /** Only integers (safe integers, as zod's `int()`). */
  int?: boolean
  /** Least value, included. */
  min?: number
  /** Greatest value, included. */
  max?: number
  /** A value it must be above (excluded). */
  above?: number
}

/** The `expected` text of a number check: `an integer ≥ 1`, `a number > 0 and ≤ 1`. */
function numberText({ int, min, max, above }: NumberLimits): string {
  const base = int ? 'an integer' : 'a finite number'
  const bounds = [
    above !== undefined ? `> ${above}` : undefined,
    min !== undefined ? `≥ ${min}` : undefined,
    max !== undefined ? `≤ ${max}` : undefined,
  ].filter((b) => b !== undefined)
  return bounds.length === 0 ? base : `${int ? 'an integer' : 'a number'} ${bounds.join(' and ')}`
}

/** A finite number (zod's `number()` refuses `NaN` and the infinities too), within `limits`. */
export function number(limits: NumberLimits = {}): Check<number> {
  assertOptions(limits, 'number', 'limits')
  const { int, min, max, above } = limits ?? {}
  assertLimit(min, 'number', 'limits.min')
  assertLimit(max, 'number', 'limits.max')
  assertLimit(above, 'number', 'limits.above')
  const expected = numberText({ int, min, max, above })
  return build<number>(expected, new Set(['number']), (value, path, issues) => {
    const ok =
      typeof value === 'number' &&
      (int ? Number.isSafeInteger(value) : Number.isFinite(value)) &&
      (min === undefined || value >= min) &&
      (max === undefined || value <= max) &&
      (above === undefined || value > above)
    return ok || refuse(expected, value, path, issues)
  })
}

/** `true` or `false`. */
export function boolean(): Check<boolean> {
  return build<boolean>('a boolean', new Set(['boolean']), (value, path, issues) =>
    typeof value === 'boolean' ? true : refuse('a boolean', value, path, issues),
  )
}

/** A value {@link literal} can check for. */
export type LiteralValue = string | number | boolean | null | undefined

function literalText(value: LiteralValue): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value)
}

/** Words joined as a list: `a`, `a or b`, `a, b or c`. */
function either(words: readonly string[]): string {
  return words.length <= 1
    ? (words[0] ?? '')
    : `${words.slice(0, -1).join(', ')} or ${words.at(-1)}`
}

/** One of `values` (compared with `Object.is`, so `NaN` is one value and `0` is not `-0`). */
export function literal<const V extends readonly LiteralValue[]>(...values: V): Check<V[number]> {
  for (const v of values) {
    if (typeof v === 'object' && v !== null) invalidArgument('literal', 'values', 'primitives', v)
    if (typeof v === 'function' || typeof v === 'symbol' || typeof v === 'bigint')
      invalidArgument('literal', 'values', 'strings, numbers, booleans, null or undefined', v)
  }
  const expected = either(values.map(literalText))
  const kinds = new Set(values.map(kindOf))
  return build<V[number]>(expected, kinds, (value, path, issues) =>
    values.some((v) => Object.is(v, value)) ? true : refuse(expected, value, path, issues),
  )
}

/** `check`, or `undefined` (in an object: the key may be left out). */
export function optional<T>(check: Check<T>): OptionalCheck<T> {
  assertCheck(check, 'optional', 'check')
  const kinds = new Set(check.kinds).add('undefined')
  const inner = build<T | undefined>(check.expected, kinds, (value, path, issues) =>
    value === undefined ? true : check.test(value, path, issues),
  )
  return { ...inner, optional: true }
}

/** `check`, `null` or `undefined` (in an object: the key may be left out). */
export function nullish<T>(check: Check<T>): OptionalCheck<T | null> {
  assertCheck(check, 'nullish', 'check')
  const kinds = new Set(check.kinds).add('undefined').add('null')
  const inner = build<T | null | undefined>(check.expected, kinds, (value, path, issues) =>
    value === undefined || value === null ? true : check.test(value, path, issues),
  )
  return { ...inner, optional: true }
}

/** An array whose every item passes `item`. */
export function array<T>(item: Check<T>): Check<T[]> {
  assertCheck(item, 'array', 'item')
  const expected = 'an array'
  return build<T[]>(expected, new Set(['array']), (value, path, issues) => {
    if (!Array.isArray(value)) return refuse(expected, value, path, issues)
    let ok = true
    for (let i = 0; i < value.length; i++) {
      if (item.test(value[i], issues ? [...(path ?? []), i] : undefined, issues)) continue
      ok = false
      if (!issues) return false
    }
    return ok
  })
}

/** Whether `value` is an object whose prototype is `Object.prototype` or `null` (zod's record). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const proto: unknown = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

/**
 * A plain object (see {@link isPlainObject}) whose every own value passes `item`, and every own
 * key `key` when given (`record(item, string({ min: 1 }))`: no empty key).
 */
export function record<T>(item: Check<T>, key?: Check<string>): Check<Record<string, T>> {
  assertCheck(item, 'record', 'item')
  if (key !== undefined) assertCheck(key, 'record', 'key')
  const expected = 'an object'
  return build<Record<string, T>>(expected, new Set(['object']), (value, path, issues) => {
    if (!isPlainObject(value)) return refuse(expected, value, path, issues)
    let ok = true
    for (const k of Object.keys(value)) {
      const at = issues ? [...(path ?? []), k] : undefined
      if ((!key || key.test(k, at, issues)) && item.test(value[k], at, issues)) continue
      ok = false
      if (!issues) return false
    }
    return ok
  })
}

/** Options of {@link strictObject}. */
export interface StrictOptions {
  /**
   * Names other libraries use for one of the keys, mapped to ours: the issue for an unknown key
   * `systemPrompt` mapped to `system` says "`systemPrompt` is `system` here".
   */
  renamed?: Readonly<Record<string, string>>
}

function objectCheck<S extends Shape>(
  fn: string,
  shape: S,
  strict: StrictOptions | undefined,
): ObjectCheck<S> {
  assertObject(shape, fn, 'shape')
  const keys = Object.keys(shape)
  for (const key of keys) assertCheck(shape[key], fn, `shape.${key}`)
  if (strict !== undefined) {
    assertOptions(strict, fn, 'options', { known: ['renamed'] })
    if (strict.renamed !== undefined) assertObject(strict.renamed, fn, 'options.renamed')
  }
  const known = new Set(keys)
  const renamed = strict?.renamed ?? {}
  const expected = 'an object'
  const test: Test = (value, path, issues) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      return refuse(expected, value, path, issues)
    const obj = value as Record<string, unknown>
    let ok = true
    for (const key of keys) {
      if (shape[key]!.test(obj[key], issues ? [...(path ?? []), key] : undefined, issues)) continue
      ok = false
      if (!issues) return false
    }
    if (strict) {
      for (const key in obj) {
        if (known.has(key) || !Object.hasOwn(obj, key)) continue
        ok = false
        if (!issues) return false
        issues.push({
          path: [...(path ?? []), key],
          message: unknownKeyMessage(key, keys, renamed),
        })
      }
    }
    return ok
  }
  return { ...build<ObjectOf<S>>(expected, new Set(['object']), test), shape }
}

/** An object with the keys of `shape` (other keys are let through, as zod's `object` does). */
export function object<const S extends Shape>(shape: S): ObjectCheck<S> {
  return objectCheck('object', shape, undefined)
}

/**
 * An object with the keys of `shape` and no other own key: an unknown key is an issue naming it,
 * and the key we use instead when `options.renamed` has it or it differs only in case, `_` or
 * `-` (core's `assertOptions` words it the same way).
 */
export function strictObject<const S extends Shape>(
  shape: S,
  options: StrictOptions = {},
): ObjectCheck<S> {
  return objectCheck('strictObject', shape, options ?? {})
}

/**
 * Any of `checks` (the first that passes). When none does, the issues are those of the one
 * branch that takes a value of this kind (a string given to `string | ModelInfo` is reported by
 * the string check, an object by the `ModelInfo` check), or one issue naming every branch.
 */
export function union<const C extends readonly Check<unknown>[]>(
  ...checks: C
): Check<Infer<C[number]>> {
  for (const [at, check] of checks.entries()) assertCheck(check, 'union', `checks[${at}]`)
  const expected = either(checks.map((c) => c.expected))
  const kinds = new Set(checks.flatMap((c) => [...c.kinds]))
  return build<Infer<C[number]>>(expected, kinds, (value, path, issues) => {
    for (const c of checks) if (c.test(value)) return true
    if (!issues) return false
    const kind = kindOf(value)
    const takers = checks.filter((c) => c.kinds.has(kind))
    if (takers.length === 1) return takers[0]!.test(value, path, issues)
    return refuse(expected, value, path, issues)
  })
}

/**
 * An object told apart by the value of `key`: `variants('type', { text: TextCheck, … })` checks
 * a `{ type: 'text', … }` with `TextCheck`, and an unknown `type` is one issue at that key.
 */
export function variants<
  const K extends string,
  const V extends Readonly<Record<string, Check<unknown>>>,
>(key: K, checks: V): Check<Infer<V[keyof V]>> {
  assertString(key, 'variants', 'key')
  assertObject(checks, 'variants', 'checks')
  const names = Object.keys(checks)
  for (const name of names) assertCheck(checks[name], 'variants', `checks.${name}`)
  const tags = either(names.map((n) => JSON.stringify(n)))
  const expected = `an object whose ${key} is ${tags}`
  return build<Infer<V[keyof V]>>(expected, new Set(['object']), (value, path, issues) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      return refuse('an object', value, path, issues)
    const tag: unknown = (value as Record<string, unknown>)[key]
    const check = typeof tag === 'string' && Object.hasOwn(checks, tag) ? checks[tag] : undefined
    if (check) return check.test(value, path, issues)
    return refuse(tags, tag, [...(path ?? []), key], issues)
  })
}

/**
 * `check`, then `rule` on what passed it: `rule` returns the problems it finds (each with its
 * path below the value, `[]` for the value itself), none when the value is good. For what the
 * shape cannot say: two fields that must agree, a depth limit.
 */
export function refine<T>(
  check: Check<T>,
  rule: (value: T) => ReadonlyArray<{ path: readonly PropertyKey[]; message: string }>,
): Check<T> {
  assertCheck(check, 'refine', 'check')
  if (typeof rule !== 'function') invalidArgument('refine', 'rule', 'a function', rule)
  return build<T>(check.expected, check.kinds, (value, path, issues) => {
    if (!check.test(value, path, issues)) return false
    const problems = rule(value as T)
    if (problems.length === 0) return true
    for (const p of problems)
      issues?.push({ path: [...(path ?? []), ...p.path], message: p.message })
    return false
  })
}

/**
 * `check` with a faster test for the common case: `accepts` must accept exactly what `check`
 * does (a property test holds each pair together); `check` then only words the issues. Internal:
 * the list checks of messages and sections use it, so that a good history of thousands of
 * messages is checked at the cost of core's hand-tuned input checks.
 */
export function withFastPath<T>(
  check: Check<T>,
  accepts: (value: unknown) => value is T,
): Check<T> {
  return {
    ...check,
    is: accepts,
    test: (value, path, issues) => accepts(value) || check.test(value, path, issues),
    safeParse: (value) =>
      accepts(value) ? { success: true, data: value } : check.safeParse(value),
  }
}

/**
 * A check built on its first use: `make` runs once, when the check is first asked anything (a
 * test, its `expected`, its `shape`), and the check then answers as the one it made. So the checks
 * a module defines at its top level cost nothing at import: a cold `import()` of a package spends
 * no time building checks its caller may never use.
 */
export function lazy<C extends Check<unknown>>(make: () => C): C {
  if (typeof make !== 'function') invalidArgument('lazy', 'make', 'a function', make)
  let made: C | undefined
  const check = (): C => {
    made ??= make()
    return made
  }
  return new Proxy({} as C, {
    get: (_, key) => Reflect.get(check(), key),
    has: (_, key) => Reflect.has(check(), key),
    ownKeys: () => Reflect.ownKeys(check()),
    getOwnPropertyDescriptor: (_, key) => {
      const d = Reflect.getOwnPropertyDescriptor(check(), key)
      return d && { ...d, configurable: true }
    },
  })
}
