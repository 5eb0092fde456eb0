import type { Context, Span, SpanKind, SpanStatusCode } from '@opentelemetry/api'

/** `SpanKind` values (OTLP's numbers), so this entry needs no runtime import of the API. */
export const SPAN_KIND = Object.freeze({ internal: 0 as SpanKind, client: 2 as SpanKind })

/** `SpanStatusCode.ERROR` (OTLP's number). */
export const STATUS_ERROR = 2 as SpanStatusCode

/**
 * The key the OpenTelemetry API keeps a context's span under. The API makes its keys with
 * `createContextKey`, which is `Symbol.for(description)` on purpose, so that every copy and
 * version of the API shares them; `trace.setSpan(ctx, span)` is `ctx.setValue(SPAN_KEY, span)`.
 */
const SPAN_KEY = Symbol.for('OpenTelemetry Context Key SPAN')

/**
 * Where the OpenTelemetry API keeps its globals (the context manager, the tracer provider): every
 * copy of API 1.x registers into and reads from `globalThis[Symbol.for('opentelemetry.js.api.1')]`,
 * so reading it here is what `context.with` / `context.active()` of any copy do, without loading
 * the API.
 */
const API_GLOBALS = Symbol.for('opentelemetry.js.api.1')

/** The registered context manager's part this entry uses. */
interface ContextManagerLike {
  active(): Context
  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    context: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F>
}

/** The context manager the app registered (`context.setGlobalContextManager`), if any. */
function contextManager(): ContextManagerLike | undefined {
  const globals = (globalThis as Record<symbol, unknown>)[API_GLOBALS] as
    | { context?: Partial<ContextManagerLike> }
    | undefined
  const manager = globals?.context
  return typeof manager?.with === 'function' && typeof manager.active === 'function'
    ? (manager as ContextManagerLike)
    : undefined
}

/** The active context (`context.active()`); `undefined` when no context manager is registered. */
export function activeContext(): Context | undefined {
  return contextManager()?.active()
}

/**
 * Run `work` with `ctx` as the active context (`context.with(ctx, work)`), so spans it starts are
 * children of `ctx`'s span; without a registered context manager, just run it (as the API does).
 */
export function withContext<T>(ctx: Context, work: () => T): T {
  const manager = contextManager()
  return manager ? manager.with(ctx, work) : work()
}

/** An immutable `Context` (the API's interface), for children of a span started without one. */
class SpanContext implements Context {
  readonly #values: ReadonlyMap<symbol, unknown>

  constructor(values: ReadonlyMap<symbol, unknown>) {
    this.#values = values
  }

  getValue(key: symbol): unknown {
    return this.#values.get(key)
  }

  setValue(key: symbol, value: unknown): Context {
    return new SpanContext(new Map(this.#values).set(key, value))
  }

  deleteValue(key: symbol): Context {
    const values = new Map(this.#values)
    values.delete(key)
    return new SpanContext(values)
  }
}

/**
 * A context whose span is `span`, for starting its children: `parent` with the span set (its
 * other values, such as baggage, kept), or a context holding only the span.
 */
export function contextWithSpan(span: Span, parent?: Context): Context {
  return parent
    ? parent.setValue(SPAN_KEY, span)
    : new SpanContext(new Map<symbol, unknown>([[SPAN_KEY, span]]))
}
