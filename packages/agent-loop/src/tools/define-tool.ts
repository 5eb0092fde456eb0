import {
  assertObject,
  describeError,
  type ImageBlock,
  invalidArgument,
  type JsonSchemaObject,
  parseWith,
  type TextBlock,
  type ToolDefinition,
  ToolDefinitionCheck,
  ToolResultContentCheck,
  ValidationError,
} from '@contextkit/core'
import * as c from '@contextkit/core/check'
import type * as z from 'zod'
import { jsonSchemaOf } from '../schema/json-schema-of.js'
import { ToolOutputError } from './errors.js'
import { fixDefinition, fixedDefinition, frozenJson } from './tool-definitions.js'

/** What a tool's `execute` learns about its call. */
export interface ToolContext {
  /** Fires when the run is aborted or the tool's `timeoutMs` passes: stop work and return. */
  signal: AbortSignal
  /** The id of the call being answered. */
  toolCallId: string
  /** The run's id. */
  runId: string
}

/**
 * What `execute` may return: a string (one text block), text/image content blocks, or any other
 * value, sent as JSON text (`undefined` sends an empty result; a `Map` is written as its
 * `[key, value]` entries, a `Set` as its values, both arrays).
 */
export type ToolOutput = string | ReadonlyArray<TextBlock | ImageBlock> | unknown

/** What an approval callback decides for one call: run it, pause for a person, or refuse it. */
export type ApprovalDecision = 'allow' | 'ask' | 'deny'

/** What an approval callback learns about the call besides its input. */
export interface ApprovalContext {
  /** The id of the call being decided. */
  toolCallId: string
  /** The run's id. */
  runId: string
}

/**
 * Whether a call may run without a person: `'allow'` (run it), `'ask'` (pause the run with
 * `stopReason: 'awaiting_approval'` until `resume: { approvals }` decides), or a function of the
 * validated input deciding per call (`'deny'` refuses it at once with an error result).
 */
export type ApprovalPolicy<Input = unknown> = 'allow' | 'ask' | ApprovalCallback<Input>

/**
 * An approval callback (written as a method type so a tool of a narrower input still is an
 * `AgentTool`, as with `execute`).
 */
export type ApprovalCallback<Input = unknown> = {
  decide(input: Input, context: ApprovalContext): ApprovalDecision | Promise<ApprovalDecision>
}['decide']

/** A tool the loop can run: a core `ToolDefinition` plus its zod input schema and executor. */
export interface AgentTool<Input = unknown> extends ToolDefinition {
  /** Validates the model's input before `execute` sees it. */
  readonly input: z.ZodType<Input>
  /**
   * Milliseconds a call may take; then its signal fires and the model gets an error result.
   * Absent: {@link DEFAULT_TOOL_TIMEOUT_MS}; `Infinity`: no limit.
   */
  readonly timeoutMs?: number
  /**
   * Running the same call twice does no harm (a read, a lookup). After a crash, a call of an
   * idempotent tool that has no saved result is run again; any other such call gets an error
   * result saying it was interrupted and may have run. Absent: `false`.
   */
  readonly idempotent?: boolean
  /** Whether a call needs a person's approval first. Absent: `'allow'`. */
  readonly approval?: ApprovalPolicy<Input>
  /**
   * Run the tool on the checked input; what it returns (or throws) is the tool result the model
   * sees.
   */
  execute(input: Input, context: ToolContext): ToolOutput | Promise<ToolOutput>
}

/** What {@link defineTool} takes. */
export interface DefineToolOptions<S extends z.ZodType> {
  /** 1–64 characters of `[a-zA-Z0-9_-]`. */
  name: string
  /** What the tool does and when to use it: the model reads this. */
  description: string
  /** zod 4 schema of the input; its top level must be an object. */
  input: S
  /**
   * Run the tool on the checked input; what it returns (or throws) is the tool result the model
   * sees.
   */
  execute(input: z.output<S>, context: ToolContext): ToolOutput | Promise<ToolOutput>
  /**
   * Milliseconds a call may take before its signal fires and it becomes an error result.
   * Default {@link DEFAULT_TOOL_TIMEOUT_MS} (10 minutes), so a tool that never settles cannot
   * hang a run; `Infinity` turns the limit off.
   */
  timeoutMs?: number
  /**
   * `true` when running a call twice does no harm: after a crash, a call left without a result
   * is run again instead of being reported as interrupted. Default `false`.
   */
  idempotent?: boolean
  /**
   * `'ask'` pauses the run before a call until a person decides (`resume: { approvals }`); a
   * function decides per call from the validated input (`'allow'`, `'ask'` or `'deny'`).
   * Default `'allow'`.
   */
  approval?: ApprovalPolicy<z.output<S>>
}

/** The time limit of a tool call when its tool gives none: 10 minutes. */
export const DEFAULT_TOOL_TIMEOUT_MS = 600_000

/** A function (of any signature). */
const fn = () =>
  c.custom<(...args: never[]) => unknown>((v) => typeof v === 'function', 'a function', [
    'function',
  ])

const OptionsCheck = /* @__PURE__ */ c.lazy(() =>
  c.strictObject({
    name: c.string(),
    description: c.string(),
    input: c.custom<z.ZodType>(
      (v) =>
        typeof v === 'object' &&
        v !== null &&
        '_zod' in v &&
        typeof (v as { safeParseAsync?: unknown }).safeParseAsync === 'function',
      'a zod 4 schema',
      ['object'],
    ),
    execute: fn(),
    timeoutMs: c.optional(
      c.union(c.number({ int: true, min: 1 }), c.literal(Number.POSITIVE_INFINITY)),
    ),
    idempotent: c.optional(c.boolean()),
    approval: c.optional(c.union(c.literal('allow', 'ask'), fn())),
  }),
)

/**
 * Define a tool from a zod 4 schema: the JSON Schema the model sees comes from zod's own
 * conversion (`z.toJSONSchema`, input side, so defaulted fields are optional; the schema's own
 * `toJSONSchema` on zod ≥ 4.2, so defining a tool loads no zod), and the loop validates every
 * call's input with the schema before `execute` runs. Throws a `ValidationError` for a bad name,
 * a schema whose top level is not an object, or one JSON Schema cannot express.
 *
 * @example
 * ```ts
 * const weather = defineTool({
 *   name: 'get_weather',
 *   description: 'Current weather for a city',
 *   input: z.object({ city: z.string() }),
 *   execute: async ({ city }) => `Sunny in ${city}`,
 * })
 * ```
 */
export function defineTool<S extends z.ZodType>(
  options: DefineToolOptions<S>,
): AgentTool<z.output<S>> {
  if (typeof options !== 'object' || options === null) {
    invalidArgument('defineTool', 'options', 'an object', options)
  }
  const parsed = parseWith(OptionsCheck, options, `tool options`)
  let schema: Record<string, unknown>
  try {
    schema = jsonSchemaOf(options.input, { io: 'input' })
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    throw new ValidationError(
      `Tool "${parsed.name}": input cannot be expressed as JSON Schema: ${message}`,
      [{ path: 'input', message }],
    )
  }
  const { $schema: _dialect, ...inputSchema } = schema
  const definition = parseWith(
    ToolDefinitionCheck,
    { name: parsed.name, description: parsed.description, inputSchema },
    `tool "${parsed.name}" (its input must be a zod object schema)`,
  )
  // frozen, with a frozen copy of its schema: its definition is made once (tool-definitions.ts)
  return fixDefinition(
    Object.freeze({
      name: definition.name,
      description: definition.description,
      inputSchema: frozenJson(definition.inputSchema) as JsonSchemaObject,
      input: options.input as z.ZodType<z.output<S>>,
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      ...(options.idempotent === undefined ? {} : { idempotent: options.idempotent }),
      ...(options.approval === undefined ? {} : { approval: options.approval }),
      execute: options.execute,
    }),
  )
}

/** The core `ToolDefinition` of a tool (what formatters and providers see). */
export function toolDefinition(tool: AgentTool): ToolDefinition {
  assertObject(tool, 'toolDefinition', 'tool')
  return (
    fixedDefinition(tool) ?? {
      name: tool.name,
      description: tool.description,
      inputSchema: tool.inputSchema,
    }
  )
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/

function isBase64(data: string): boolean {
  return data.length % 4 === 0 && BASE64.test(data)
}

/**
 * What JSON cannot write as it is, written as data: bigints as their digits; a `Map` as the array
 * of its `[key, value]` entries (an array, not an object, so keys of any type, `1` and `'1'`
 * included, stay apart), a `Set` as the array of its values. Anywhere in the value, not only at
 * the top. A `WeakMap` or `WeakSet` cannot be listed: a {@link ToolOutputError}.
 */
function sendable(_key: string, value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString()
  if (typeof value !== 'object' || value === null) return value
  if (value instanceof Map || value instanceof Set) return [...value]
  if (value instanceof WeakMap || value instanceof WeakSet) {
    const kind = value instanceof WeakMap ? 'WeakMap' : 'WeakSet'
    throw new ToolOutputError(`the tool returned a ${kind}, whose contents cannot be listed`)
  }
  return value
}

/**
 * The content of a tool result for what `execute` returned: a string as one text block, valid
 * text/image blocks as they are, `undefined` as nothing, anything else as JSON text (bigints as
 * their digits, a `Map` as an array of `[key, value]` entries, a `Set` as an array of values).
 *
 * @throws ToolOutputError for a value that cannot be sent faithfully: a function or symbol, a
 * cyclic object or one whose `toJSON` throws, a `WeakMap` or `WeakSet`, or an image block whose
 * data is not base64. The loop turns it into an error result the model sees; nothing of it is
 * sent or saved.
 */
export function toolOutputContent(output: unknown): Array<TextBlock | ImageBlock> {
  if (typeof output === 'string') return [{ type: 'text', text: output }]
  if (output === undefined) return []
  if (typeof output === 'function' || typeof output === 'symbol') {
    throw new ToolOutputError(`the tool returned a ${typeof output}, which cannot be sent`)
  }
  if (Array.isArray(output) && output.length > 0 && ToolResultContentCheck.is(output)) {
    for (const b of output) {
      if (b.type === 'image' && !isBase64(b.data)) {
        throw new ToolOutputError('the tool returned an image whose data is not base64')
      }
    }
    // the blocks' own fields only, as a zod parse of them would give
    return output.map((b) =>
      b.type === 'text'
        ? { type: 'text', text: b.text }
        : { type: 'image', mediaType: b.mediaType, data: b.data },
    )
  }
  let text: string
  try {
    text = JSON.stringify(output, sendable)
  } catch (error) {
    if (ToolOutputError.isInstance(error)) throw error
    throw new ToolOutputError(
      `the tool returned a value that cannot be written as JSON: ${describeError(error)}`,
      { cause: error },
    )
  }
  return [{ type: 'text', text }]
}
