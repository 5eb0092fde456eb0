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
  readonly [MARKER] = true

  constructor(message: string, options: TestkitErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
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
 * `startAnthropicEmulator` got invalid options (bad port, write size, model list, script), or
 * `messageEvents` / `sseFrame` got a malformed message or event.
 */
export class EmulatorConfigError extends TestkitError {
  static override readonly code: string = 'testkit_config'
}

/** A request arrived after every step of a list script was used. Answered with HTTP 500. */
export class ScriptExhaustedError extends TestkitError {
  static override readonly code: string = 'testkit_script_exhausted'
}

/**
 * A script function threw, or a step was not a valid reply spec. Answered with HTTP 500
 * (`x-should-retry: false`); the error is kept in `emulator.failures`.
 */
export class ScriptFailedError extends TestkitError {
  static override readonly code: string = 'testkit_script_failed'
}
