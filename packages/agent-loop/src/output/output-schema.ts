import type { ToolDefinition } from '@contextkit/core'
import type * as z from 'zod'
import { jsonSchemaOf } from '../schema/json-schema-of.js'

/** Name of the tool a final structured output is asked for with (`outputMode: 'tool'`). */
export const OUTPUT_TOOL_NAME = 'final_output'

/** The output schema as JSON Schema for the model, and how to read a value back. */
export interface OutputSpec {
  /** The schema the model is given: an object at the top level. */
  jsonSchema: Record<string, unknown>
  /** Whether the schema is wrapped (`{ value: … }`) because it is not an object at the top. */
  wrapped: boolean
  /** The zod schema the value is validated with. */
  schema: z.ZodType
}

/** Whether `value` is a zod 4 schema (what `runAgent`'s `output` takes). */
export function isZodSchema(value: unknown): value is z.ZodType {
  return (
    typeof value === 'object' &&
    value !== null &&
    '_zod' in value &&
    typeof (value as { safeParse?: unknown }).safeParse === 'function'
  )
}

/** `schema` as JSON Schema (zod 4's `z.toJSONSchema`), wrapped in `{ value }` unless an object. */
export function outputSpec(schema: z.ZodType): OutputSpec {
  const { $schema: _dialect, ...json } = jsonSchemaOf(schema, { unrepresentable: 'any' })
  if (json.type === 'object') return { jsonSchema: json, wrapped: false, schema }
  const jsonSchema = {
    type: 'object',
    properties: { value: json },
    required: ['value'],
    additionalProperties: false,
  }
  return { jsonSchema, wrapped: true, schema }
}

/** The tool the model answers with in `'tool'` mode. */
export function outputTool(spec: OutputSpec): ToolDefinition {
  return {
    name: OUTPUT_TOOL_NAME,
    description:
      'Give the final answer of the task, in the required structure. Call it once, last.',
    inputSchema: spec.jsonSchema as ToolDefinition['inputSchema'],
  }
}

/** The text of a reply as JSON: the whole text, or the body of a fenced block in it. */
export function parseJsonText(
  text: string,
): { ok: true; value: unknown } | { ok: false; error: string } {
  const fenced = /```(?:json)?\s*\n([\s\S]*?)\n?```/.exec(text)
  const body = (fenced?.[1] ?? text).trim()
  try {
    return { ok: true, value: JSON.parse(body) as unknown }
  } catch (error) {
    return { ok: false, error: `the reply is not JSON (${(error as Error).message})` }
  }
}

/** Validate what the model gave (unwrapping `{ value }`); the error lists every bad path. */
export function validateOutput(
  spec: OutputSpec,
  given: unknown,
): { ok: true; value: unknown } | { ok: false; error: string } {
  const raw = spec.wrapped ? (given as { value?: unknown } | null)?.value : given
  const parsed = spec.schema.safeParse(raw)
  if (parsed.success) return { ok: true, value: parsed.data }
  const issues = parsed.error.issues.map((i) => {
    const path = (spec.wrapped ? ['value', ...i.path] : i.path).join('.')
    return path === '' ? i.message : `${path}: ${i.message}`
  })
  return { ok: false, error: issues.join('; ') }
}
