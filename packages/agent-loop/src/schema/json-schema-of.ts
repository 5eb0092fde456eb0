import type * as z from 'zod'
import { zodNow } from './lazy-zod.js'

/** What {@link jsonSchemaOf} passes on to zod's conversion. */
export interface JsonSchemaParams {
  /** `'input'`: the schema of what the schema takes (defaulted fields optional). */
  io?: 'input' | 'output'
  /** `'any'`: a part JSON Schema cannot express becomes `{}` instead of an error. */
  unrepresentable?: 'throw' | 'any'
}

/**
 * `schema` as JSON Schema, by zod's own conversion (`z.toJSONSchema(schema, params)`): through
 * the schema's `toJSONSchema` method (zod ≥ 4.2), so no zod is loaded for it, else through zod's
 * function (zod 4.0–4.1, `zod/mini`). Throws what zod throws for a schema it cannot convert.
 */
export function jsonSchemaOf(schema: z.ZodType, params: JsonSchemaParams): Record<string, unknown> {
  const own = (schema as { toJSONSchema?: unknown }).toJSONSchema
  if (typeof own === 'function') return own.call(schema, params) as Record<string, unknown>
  return zodNow().toJSONSchema(schema, params) as Record<string, unknown>
}
