/**
 * Typed errors of the emulator.
 *
 * testkit does not depend on `@contextkit/core`, but its errors carry the same
 * `Symbol.for('contextkit.error')` marker and a stable `code`, so `ContextkitError.isInstance(e)`
 * from core recognizes them, and {@link TestkitError.isInstance} works across package copies.
 */

const MARKER: unique symbol = Symbol.for('contextkit.error') as never

/** Options of {@link TestkitError}. */
export interface TestkitErrorOptions {
  /** The underlying error, if any. Default: none. */
  cause?: unknown
  /** Structured details (request index, path, …). Default `{}`. */
  details?: Record<string, unknown>
}

/** Base class of every error testkit creates on purpose. Classify by `code` or type. */
export class TestkitError extends Error {
  /** The code of this class; subclasses override it. */
  static readonly code: string = 'testkit_error'
  /** Stable, machine-readable code. */
  readonly code: string
  /** Always `false`: a testkit error means the test setup or script is wrong. */
  readonly recoverable = false
  /** Structured details. */
  readonly details: Record<string, unknown>
  /** The cross-copy marker (`Symbol.for('contextkit.error')`) that `isInstance` checks. */
  readonly [MARKER] = true

  constructor(message: string, options: TestkitErrorOptions = {}) {
    // An error is built on failure paths: a bad message or options never hide the failure.
    options = typeof options === 'object' && options !== null ? options : {}
    super(toText(message), options.cause === undefined ? undefined : { cause: options.cause })
    const ctor = new.target as typeof TestkitError
    this.name = ctor.name
    this.code = ctor.code
    this.details = options.details ?? {}
  }

  /**
   * Type guard that works across duplicated package copies. On a subclass it also checks the
   * subclass's `code`: `ScriptExhaustedError.isInstance(e)`.
   */
  static isInstance<T extends TestkitError>(
    this: (abstract new (...args: never[]) => T) & { readonly code: string },
    value: unknown,
  ): value is T {
    if (typeof value !== 'object' || value === null) return false
    if ((value as Record<symbol, unknown>)[MARKER] !== true) return false
    const code = (value as { code?: unknown }).code
    if (this.code === TestkitError.code)
      return typeof code === 'string' && code.startsWith('testkit_')
    return code === this.code
  }
}

/**
 * `startAnthropicEmulator` got invalid options (bad port, write size, model list, script),
 * `messageEvents` / `sseFrame` got a malformed message or event, or a public function got an
 * argument of the wrong type.
 */
export class EmulatorConfigError extends TestkitError {
  /** The `code` of every error of this class: `testkit_config`. */
  static override readonly code: string = 'testkit_config'
}

/** A request arrived after every step of a list script was used. Answered with HTTP 500. */
export class ScriptExhaustedError extends TestkitError {
  /** The `code` of every error of this class: `testkit_script_exhausted`. */
  static override readonly code: string = 'testkit_script_exhausted'
}

/**
 * A script function threw, or a step was not a valid reply spec. Answered with HTTP 500
 * (`x-should-retry: false`); the error is kept in `emulator.failures`.
 */
export class ScriptFailedError extends TestkitError {
  /** The `code` of every error of this class: `testkit_script_failed`. */
  static override readonly code: string = 'testkit_script_failed'
}

/** `value` as text for a message: `String(value)`, but never throws (null-prototype objects). */
function toText(value: unknown): string {
  if (typeof value === 'string') return value
  try {
    return String(value)
  } catch {
    return Object.prototype.toString.call(value)
  }
}

function kindOf(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  return typeof value
}

/**
 * Throw the {@link EmulatorConfigError} for a wrong argument — a caller's programming error,
 * typed, instead of a `TypeError` from deep inside: `fn: param must be expected, got kind`.
 * Internal (not exported from the package).
 */
export function invalidArgument(
  fn: string,
  param: string,
  expected: string,
  value: unknown,
): never {
  throw new EmulatorConfigError(`${fn}: ${param} must be ${expected}, got ${kindOf(value)}`, {
    details: { param, expected },
  })
}

/** {@link invalidArgument} unless `value` is an object (not null, not an array). */
export function assertObject(value: unknown, fn: string, param: string): asserts value is object {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    invalidArgument(fn, param, 'an object', value)
  }
}
