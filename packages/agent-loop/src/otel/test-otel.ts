// The OpenTelemetry SDK as the otel tests use it: an in-memory exporter behind a simple span
// processor, and the async-hooks context manager made global for the test file.
import { context, type Tracer } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base'
import { afterAll, beforeAll, beforeEach } from 'vitest'

/**
 * A tracer named `name` whose spans land in `exporter`, emptied before each test; the context
 * manager is enabled for the file's tests and disabled after them.
 */
export function otelHarness(name: string): { exporter: InMemorySpanExporter; tracer: Tracer } {
  const exporter = new InMemorySpanExporter()
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
  const contextManager = new AsyncLocalStorageContextManager()
  beforeAll(() => {
    context.setGlobalContextManager(contextManager.enable())
  })
  afterAll(() => {
    contextManager.disable()
    context.disable()
  })
  beforeEach(() => exporter.reset())
  return { exporter, tracer: provider.getTracer(name) }
}
