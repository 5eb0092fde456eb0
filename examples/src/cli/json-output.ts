import type { OutputStream } from './terminal.js'

function replacer(_key: string, value: unknown): unknown {
  if (value instanceof Error) {
    const { code, details } = value as Error & { code?: unknown; details?: unknown }
    return {
      name: value.name,
      message: value.message,
      ...(code === undefined ? {} : { code }),
      ...(details === undefined ? {} : { details }),
    }
  }
  if (typeof value === 'bigint') return value.toString()
  return value
}

/**
 * One JSON line for an event: errors become `{ name, message, code?, details? }` (their own
 * properties are not enumerable), bigints strings; nothing else changes, so an agent event keeps
 * its `type` and fields exactly.
 */
export function jsonLine(value: unknown): string {
  return JSON.stringify(value, replacer)
}

/** Writes events as JSON lines (`--json`): one object per line, nothing else on the stream. */
export class JsonOutput {
  readonly #stream: OutputStream

  constructor(stream: OutputStream) {
    this.#stream = stream
  }

  /** Write one event (an object with a `type`). */
  event(event: { type: string; [field: string]: unknown }): void {
    this.#stream.write(`${jsonLine(event)}\n`)
  }
}
