const MARKER: unique symbol = Symbol.for('contextkit.error') as never

/** Options shared by every {@link ContextkitError}. */
export interface ContextkitErrorOptions {
  /** Stable, machine-readable code. Classify errors by `code` or type, never by message text. */
  code?: string
  /**
   * `true` when the feature that failed can turn itself off for this call and the run can go on
   * (the middleware runner records a warning and skips the middleware). Default `false`.
   */
  recoverable?: boolean
  /** The underlying error, if any. */
  cause?: unknown
  /** Structured details for logs and traces (paths, limits, ids). */
  details?: Record<string, unknown>
}

/**
 * Base class of every error contextkit throws on purpose.
 *
 * Carries a `code`, a `recoverable` flag and a `Symbol.for('contextkit.error')` marker, so
 * {@link ContextkitError.isInstance} works even when two copies of a package are installed.
 */
export class ContextkitError extends Error {
  /** The code of this class; subclasses override it. */
  static readonly code: string = 'contextkit_error'
  /** Stable, machine-readable code; classify errors by `code` or class, never by message text. */
  readonly code: string
  /** Codes of this error's class and every ancestor class, most specific first. */
  readonly kinds: readonly string[]
  /** `true` when the caller can go on without what failed (middleware turns it into a warning). */
  readonly recoverable: boolean
  /** Machine-readable facts about the failure (argument, value, limit). */
  readonly details: Record<string, unknown>
  /** The cross-copy marker (`Symbol.for('contextkit.error')`) that `isInstance` checks. */
  readonly [MARKER] = true

  constructor(message: string, options: ContextkitErrorOptions = {}) {
    // An error is built on failure paths: a bad message or options never hide the failure.
    options = typeof options === 'object' && options !== null ? options : {}
    super(toText(message), options.cause === undefined ? undefined : { cause: options.cause })
    const ctor = new.target as typeof ContextkitError
    this.name = ctor.name
    this.code = options.code ?? ctor.code
    this.kinds = classCodes(ctor)
    this.recoverable = options.recoverable ?? false
    this.details = options.details ?? {}
  }

  /**
   * Type guard that works across duplicated package copies (it reads a global symbol marker and
   * plain data, not prototypes). Called on a subclass it also checks that the error is of that
   * class or a class below it, by code: `PathOutsideRootError.isInstance(e)`; an intermediate
   * base class (`PreloadRefusalError.isInstance(e)`) accepts all of its subclasses.
   */
  static isInstance<T extends ContextkitError>(
    this: (abstract new (...args: never[]) => T) & { readonly code: string },
    value: unknown,
  ): value is T {
    if (typeof value !== 'object' || value === null) return false
    if ((value as Record<symbol, unknown>)[MARKER] !== true) return false
    if (this.code === ContextkitError.code) return true
    const { code, kinds } = value as { code?: unknown; kinds?: unknown }
    return code === this.code || (Array.isArray(kinds) && kinds.includes(this.code))
  }
}

/**
 * `value` as text, for messages: `String(value)`, but never throws (a null-prototype object has
 * no `toString`). Internal: not exported from the package.
 */
export function toText(value: unknown): string {
  if (typeof value === 'string') return value
  try {
    return String(value)
  } catch {
    return Object.prototype.toString.call(value)
  }
}

function classCodes(ctor: typeof ContextkitError): string[] {
  const codes: string[] = []
  for (
    let c: unknown = ctor;
    typeof c === 'function' && Object.hasOwn(c, 'code');
    c = Object.getPrototypeOf(c)
  ) {
    const code: unknown = Reflect.get(c, 'code')
    if (typeof code === 'string' && !codes.includes(code)) codes.push(code)
  }
  return codes
}

/** Input failed a zod schema. `issues` lists each problem with its path. */
export class ValidationError extends ContextkitError {
  /** The `code` of every error of this class: `validation_error`. */
  static override readonly code: string = 'validation_error'
  /** Every problem found, each with the path of the value and what is wrong with it. */
  readonly issues: ReadonlyArray<{ path: string; message: string }>

  constructor(
    message: string,
    issues: ReadonlyArray<{ path: string; message: string }>,
    options: ContextkitErrorOptions = {},
  ) {
    super(message, options)
    this.issues = Array.isArray(issues) ? issues : []
  }
}

/** A feature was configured in a way that cannot work (bad option values, conflicting options). */
export class ConfigurationError extends ContextkitError {
  /** The `code` of every error of this class: `configuration_error`. */
  static override readonly code: string = 'configuration_error'
}

/** One problem a {@link SafeParser} found: where in the value (keys and indexes) and what. */
export interface SafeParseIssue {
  /** Keys and indexes from the root of the value to the bad part; `[]` for the root. */
  readonly path: readonly PropertyKey[]
  /** What is wrong, for a person. */
  readonly message: string
}

/**
 * What {@link parseWith} needs of a schema: zod's `safeParse`. Every zod 4 schema (classic or
 * `zod/mini`) is one; so is a hand-written check that answers the same way, which keeps zod out
 * of a bundle that only checks its own options.
 */
export interface SafeParser<T> {
  /** `{ success: true, data }` with the parsed value, or `{ success: false, error: { issues } }`. */
  safeParse(
    value: unknown,
  ): { success: true; data: T } | { success: false; error: { issues: readonly SafeParseIssue[] } }
}

/**
 * Parse `value` with a zod schema (or any {@link SafeParser}), throwing a
 * {@link ValidationError} that names `what` and every failing path instead of zod's raw error.
 */
export function parseWith<T>(schema: SafeParser<T>, value: unknown, what: string): T {
  if (typeof (schema as { safeParse?: unknown } | null)?.safeParse !== 'function') {
    invalidArgument('parseWith', 'schema', 'a zod schema', schema)
  }
  assertString(what, 'parseWith', 'what')
  const result = schema.safeParse(value)
  if (result.success) return result.data
  const issues = result.error.issues.map((issue) => ({
    path: issuePath(issue.path),
    message: issue.message,
  }))
  throw new ValidationError(`Invalid ${what}: ${describeIssues(result.error.issues)}`, issues)
}

function issuePath(path: readonly PropertyKey[]): string {
  return path.map(String).join('.') || '(root)'
}

/**
 * zod issues as one line, the one way every package words them: `path: message` joined by `; `,
 * the first `max` (default 5) and a count of the rest (`(and 3 more)`); the root path is
 * `(root)`.
 */
export function describeIssues(
  issues: ReadonlyArray<{ path: readonly PropertyKey[]; message: string }>,
  max = 5,
): string {
  assertArray(issues, 'describeIssues', 'issues')
  const shown = issues
    .slice(0, max)
    .map((i) => `${issuePath(i.path)}: ${i.message}`)
    .join('; ')
  return issues.length > max ? `${shown} (and ${issues.length - max} more)` : shown
}

/**
 * Throw the {@link ValidationError} for a wrong argument type — a caller's programming error,
 * typed, instead of a `TypeError` from deep inside: `fn: param must be expected`. Pass the value
 * received (as a fourth argument) to have its kind named in the issue.
 */
export function invalidArgument(
  fn: string,
  param: string,
  expected: string,
  ...received: [unknown?]
): never {
  const got = received.length > 0 ? `, got ${kindOf(received[0])}` : ''
  const [f, p, e] = [toText(fn), toText(param), toText(expected)]
  throw new ValidationError(`${f}: ${p} must be ${e}`, [
    { path: p, message: `expected ${e}${got}` },
  ])
}

function kindOf(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  return typeof value
}

/** Assert that `value` is a string (or `undefined` when `optional`), else {@link invalidArgument}. */
export function assertString(
  value: unknown,
  fn: string,
  param: string,
  optional = false,
): asserts value is string {
  if (typeof value === 'string' || (optional && value === undefined)) return
  invalidArgument(fn, param, optional ? 'a string or undefined' : 'a string', value)
}

/**
 * Assert that `value` is an object (not `null`, not an array; a null-prototype object is one),
 * else {@link invalidArgument}.
 */
export function assertObject<T>(value: T, fn: string, param: string): asserts value is T & object {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    invalidArgument(fn, param, 'an object', value)
  }
}

/** The keys an options object may have, for {@link assertOptions}. */
export interface OptionKeys {
  /** Every key the options object may have. */
  known: ReadonlySet<string> | readonly string[]
  /**
   * Names other libraries (or the design documents) use for one of ours, mapped to ours: with
   * `systemPrompt` mapped to `system`, the refusal says "`systemPrompt` is `system` here". The
   * value is shown as written, so it may also be a short call (`new NativeFormatter(…)`).
   */
  renamed?: Readonly<Record<string, string>>
}

/**
 * Assert that an options argument is an object or `undefined` (not `null`, a number, a string or
 * an array), else {@link invalidArgument}. With `keys`, an own enumerable key not in
 * `keys.known` is refused too (a {@link ValidationError} with one issue per unknown key), never
 * ignored: the message names the key we use instead when `keys.renamed` has it, or the known key
 * it differs from only in case, `_` or `-` (`toolmode` → `toolMode`).
 */
export function assertOptions(
  value: unknown,
  fn: string,
  param = 'options',
  keys?: OptionKeys,
): void {
  if (value === undefined) return
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    invalidArgument(fn, param, 'an options object or undefined', value)
  }
  if (keys !== undefined) assertKnownKeys(value, fn, param, keys)
}

function assertKnownKeys(value: object, fn: string, param: string, keys: OptionKeys): void {
  const known = (keys as Partial<OptionKeys> | null)?.known
  if (!Array.isArray(known) && !(known instanceof Set))
    invalidArgument('assertOptions', 'keys', '{ known: string[] | Set<string>, renamed? }', keys)
  const set = known instanceof Set
  let unknown: string[] | undefined
  // for-in reads V8's enum cache (no array per call); inherited keys are skipped
  for (const key in value) {
    if (set ? (known as ReadonlySet<string>).has(key) : (known as string[]).includes(key)) continue
    if (!Object.hasOwn(value, key)) continue
    unknown ??= []
    unknown.push(key)
  }
  if (unknown === undefined) return
  const renamed = typeof keys.renamed === 'object' && keys.renamed !== null ? keys.renamed : {}
  const issues = unknown.map((key) => ({
    path: key,
    message: unknownKeyMessage(key, known, renamed),
  }))
  const f = toText(fn)
  const p = toText(param)
  throw new ValidationError(`${f}: ${p}: ${issues.map((i) => i.message).join('; ')}`, issues, {
    details: { unknownKeys: issues.map((i) => i.path) },
  })
}

/**
 * The issue for an unknown option `key`: `` unknown option `key` ``, then the name we use instead
 * when `renamed` has it, or the known key (or renamed one) it is a slip for. Internal: shared by
 * {@link assertOptions} and the strict object checks of `@contextkit/core/check`.
 */
export function unknownKeyMessage(
  key: string,
  known: ReadonlySet<string> | readonly string[],
  renamed: Readonly<Record<string, string>> = {},
): string {
  const head = `unknown option \`${key}\``
  if (Object.hasOwn(renamed, key)) return `${head}: \`${key}\` is \`${renamed[key]}\` here`
  const near = [...known].find((k) => nearMiss(key, k))
  if (near !== undefined) return `${head}: did you mean \`${near}\`?`
  const other = Object.keys(renamed).find((k) => nearMiss(key, k))
  if (other !== undefined) return `${head}: \`${other}\` is \`${renamed[other]}\` here`
  return head
}

/**
 * Whether `a` is a slip for `b`: the same but for case, `_` and `-`, or (from 4 characters)
 * one character inserted, dropped or replaced.
 */
function nearMiss(a: string, b: string): boolean {
  const x = a.toLowerCase().replace(/[_-]/g, '')
  const y = b.toLowerCase().replace(/[_-]/g, '')
  if (x === y) return true
  if (Math.min(x.length, y.length) < 4 || Math.abs(x.length - y.length) > 1) return false
  let i = 0
  while (i < x.length && i < y.length && x[i] === y[i]) i++
  // one edit at the first difference: the rests must then be equal
  return (
    x.slice(i + 1) === y.slice(i + 1) ||
    x.slice(i) === y.slice(i + 1) ||
    x.slice(i + 1) === y.slice(i)
  )
}

/** Assert that `value` is an array, else {@link invalidArgument}. */
export function assertArray(
  value: unknown,
  fn: string,
  param: string,
): asserts value is readonly unknown[] {
  if (!Array.isArray(value)) invalidArgument(fn, param, 'an array', value)
}

/** Assert that `value` is a finite number, else {@link invalidArgument}. */
export function assertFiniteNumber(
  value: unknown,
  fn: string,
  param: string,
): asserts value is number {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    invalidArgument(fn, param, 'a finite number', value)
  }
}

/** Describe any thrown value in one line, for warnings and traces. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`
  try {
    return `Non-error thrown: ${JSON.stringify(error)}`
  } catch {
    return `Non-error thrown: ${String(error)}`
  }
}
