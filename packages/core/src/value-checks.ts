// Small structural checks in the manner of zod, for the code that must not load zod: a package
// root checks its options with these, so that `import('@contextkit/agent-loop')` does not spend
// the 60 ms of zod's module load (issue 46). Each check is a `SafeParser` (`parseWith` takes it),
// lists every problem with its path, and carries its type (`Infer`). No transforms, no defaults:
// a check says yes or no, and what passes is the value as given.
import {
  assertOptions,
  assertString,
  invalidArgument,
  type SafeParseIssue,
  type SafeParser,
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

/** The test a check is built from (internal: see {@link build}). */
export type Test = (
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

/**
 * Assert that `value` is a {@link Check} (made by these modules), else `invalidArgument`.
 * Internal: composite-checks.ts uses it; not exported from `@contextkit/core/check`.
 */
export function assertCheck(
  value: unknown,
  fn: string,
  param: string,
): asserts value is Check<unknown> {
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

/**
 * A check from its `expected` text, its kinds and its test. Internal: the constructor of every
 * check of value-checks.ts and composite-checks.ts.
 */
export function build<T>(expected: string, kinds: ReadonlySet<ValueKind>, test: Test): Check<T> {
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

/** Push the issue "expected …, got …" at `path`; always `false`. Internal. */
export function refuse(
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

/** Words joined as a list: `a`, `a or b`, `a, b or c`. Internal. */
export function either(words: readonly string[]): string {
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
