import { exceedsJsonDepth, MAX_JSON_DEPTH } from '@contextkit/core'
import { isExactInteger, parseJsonLossless } from './lossless-json.js'

const INTEGER = /^-?(0|[1-9]\d*)$/
const NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/

function schemaTypes(schema: unknown): string[] {
  if (typeof schema !== 'object' || schema === null) return []
  const type = (schema as { type?: unknown }).type
  if (typeof type === 'string') return [type]
  if (Array.isArray(type)) return type.filter((t): t is string => typeof t === 'string')
  return []
}

/**
 * Turn a parameter's text into a value, guided only by its JSON Schema `type`.
 *
 * - no schema or no `type`, or `type` includes `string`: the text, unchanged;
 * - `integer`/`number`: a number when the trimmed text is a finite JSON number; an integer literal
 *   that a JS number cannot hold exactly (e.g. `9007199254740993`) stays as its decimal
 *   **string**, never rounded;
 * - `boolean`: `true`/`false`; `null`: `null`;
 * - `object`/`array`: parsed JSON (inexact big integers inside kept as strings), when it nests at
 *   most core's `MAX_JSON_DEPTH` − 1 levels (the input holding it is one level more), so a call
 *   parsed from XML can always be built again;
 *
 * Text that does not fit the declared type is returned unchanged (as a string), so the tool's
 * own validation can report it.
 */
export function coerceParameter(text: string, schema: unknown): unknown {
  const types = schemaTypes(schema)
  if (types.length === 0 || types.includes('string')) return text
  const t = text.trim()
  for (const type of types) {
    if ((type === 'integer' || type === 'number') && NUMBER.test(t)) {
      if (type === 'integer' && !INTEGER.test(t)) continue
      if (INTEGER.test(t) && !isExactInteger(t)) return t
      const n = Number(t)
      // `1e400` would become Infinity (not JSON, and not what was written): keep the text
      return Number.isFinite(n) ? n : text
    }
    if (type === 'boolean' && (t === 'true' || t === 'false')) return t === 'true'
    if (type === 'null' && t === 'null') return null
    if ((type === 'object' && t.startsWith('{')) || (type === 'array' && t.startsWith('['))) {
      try {
        const value = parseJsonLossless(t)
        if (
          (type === 'array' ? Array.isArray(value) : typeof value === 'object' && value !== null) &&
          !exceedsJsonDepth(value, MAX_JSON_DEPTH - 1)
        )
          return value
      } catch {
        // not JSON: fall through and keep the text
      }
    }
  }
  return text
}

/** The JSON Schema of one parameter of a tool, if declared. */
export function parameterSchema(inputSchema: unknown, name: string): unknown {
  if (typeof inputSchema !== 'object' || inputSchema === null) return undefined
  const props = (inputSchema as { properties?: unknown }).properties
  if (typeof props !== 'object' || props === null) return undefined
  return Object.hasOwn(props, name) ? (props as Record<string, unknown>)[name] : undefined
}
