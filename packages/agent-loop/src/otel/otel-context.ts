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
