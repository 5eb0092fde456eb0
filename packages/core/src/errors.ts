import type { z } from 'zod'

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
  readonly code: string
  readonly recoverable: boolean
  readonly details: Record<string, unknown>
  readonly [MARKER] = true

  constructor(message: string, options: ContextkitErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    const ctor = new.target as typeof ContextkitError
    this.name = ctor.name
    this.code = options.code ?? ctor.code
    this.recoverable = options.recoverable ?? false
    this.details = options.details ?? {}
  }

  /**
   * Type guard that works across duplicated package copies. Called on a subclass it also checks
   * that the error's `code` is the subclass's code: `PathOutsideRootError.isInstance(e)`.
   */
  static isInstance<T extends ContextkitError>(
    this: (abstract new (...args: never[]) => T) & { readonly code: string },
    value: unknown,
  ): value is T {
    if (typeof value !== 'object' || value === null) return false
    if ((value as Record<symbol, unknown>)[MARKER] !== true) return false
    if (this.code === ContextkitError.code) return true
    return (value as { code?: unknown }).code === this.code
  }
}

/** Input failed a zod schema. `issues` lists each problem with its path. */
export class ValidationError extends ContextkitError {
  static override readonly code: string = 'validation_error'
  readonly issues: ReadonlyArray<{ path: string; message: string }>

  constructor(
    message: string,
    issues: ReadonlyArray<{ path: string; message: string }>,
    options: ContextkitErrorOptions = {},
  ) {
    super(message, options)
    this.issues = issues
  }
}

/** A feature was configured in a way that cannot work (bad option values, conflicting options). */
export class ConfigurationError extends ContextkitError {
  static override readonly code: string = 'configuration_error'
}

/**
 * Parse `value` with a zod schema, throwing a {@link ValidationError} that names `what` and every
 * failing path instead of zod's raw error.
 */
export function parseWith<S extends z.ZodType>(
  schema: S,
  value: unknown,
  what: string,
): z.output<S> {
  const result = schema.safeParse(value)
  if (result.success) return result.data
  const issues = result.error.issues.map((issue) => ({
    path: issue.path.map(String).join('.') || '(root)',
    message: issue.message,
  }))
  const summary = issues
    .slice(0, 5)
    .map((i) => `${i.path}: ${i.message}`)
    .join('; ')
  const more = issues.length > 5 ? ` (and ${issues.length - 5} more)` : ''
  throw new ValidationError(`Invalid ${what}: ${summary}${more}`, issues)
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
