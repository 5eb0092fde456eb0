import {
  invalidArgument,
  type JsonSchemaObject,
  parseWith,
  ToolDefinitionCheck,
  ValidationError,
} from '@contextkit/core'
import type { ErrorObject, ValidateFunction } from 'ajv'
import type * as z from 'zod'
import { zodNow } from '../schema/lazy-zod.js'
import { type AjvModules, ajvNow, loadAjv } from './ajv-loader.js'
import {
  type AgentTool,
  type ApprovalPolicy,
  type DefineToolOptions,
  defineTool,
  type ToolContext,
  type ToolOutput,
} from './define-tool.js'
import { fixDefinition, frozenJson } from './tool-definitions.js'

/**
 * What {@link jsonSchemaTool} takes: the options of `defineTool` (name, description, timeout and
 * any other tool option), with a JSON Schema in place of the zod schema.
 */
export type JsonSchemaToolOptions<Input = Record<string, unknown>> = Omit<
  DefineToolOptions<z.ZodType>,
  'input' | 'execute' | 'approval'
> & {
  /** Whether a call needs a person's approval first (see `defineTool`); sees the validated input. */
  approval?: ApprovalPolicy<Input>
  /**
   * JSON Schema of the input; its top level must be `type: "object"`. Draft 2020-12 unless its
   * `$schema` names draft-07 or draft-06 (the dialects MCP servers send). Sent to the model as is
   * (without `$schema`).
   */
  inputSchema: Record<string, unknown>
  /** Runs with the validated input (a copy, with the schema's `default`s filled in). */
  execute(input: Input, context: ToolContext): ToolOutput | Promise<ToolOutput>
}

const DRAFT_07 = /^https?:\/\/json-schema\.org\/draft-0[67]\/schema#?$/

/**
 * A validator for `schema`, compiled by Ajv (a fresh instance per tool, so `$id`s of different
 * tools never collide): all errors reported, unknown keywords and formats tolerated (schemas
 * come from other programs), the `ajv-formats` formats checked, defaults filled in.
 */
function compile(
  { Ajv, Ajv2020, addFormats }: AjvModules,
  schema: Record<string, unknown>,
  tool: string,
): ValidateFunction {
  const { $schema: dialect, ...body } = schema
  const options = { allErrors: true, strict: false, useDefaults: true, logger: false } as const
  const ajv =
    typeof dialect === 'string' && DRAFT_07.test(dialect) ? new Ajv(options) : new Ajv2020(options)
  addFormats(ajv)
  try {
    return ajv.compile(body)
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    throw new ValidationError(
      `Tool "${tool}": inputSchema is not a valid JSON Schema: ${message}`,
      [{ path: 'inputSchema', message }],
    )
  }
}

/** The path of an Ajv error as zod path segments (`/a/0` → `['a', 0]`, plus a missing key). */
function issuePath(error: ErrorObject): Array<string | number> {
  const path: Array<string | number> = error.instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s))
  const missing = (error.params as { missingProperty?: unknown }).missingProperty
  if (error.keyword === 'required' && typeof missing === 'string') path.push(missing)
  return path
}

/** Check `value` with `validate`: a copy with defaults filled in, or an issue per Ajv error. */
function validated<Input>(validate: ValidateFunction, value: unknown, ctx: z.RefinementCtx): Input {
  const copy: unknown = structuredClone(value)
  if (validate(copy)) return copy as Input
  for (const error of validate.errors ?? []) {
    const missing = error.keyword === 'required'
    ctx.addIssue({
      code: 'custom',
      path: issuePath(error),
      message: missing ? 'is required' : (error.message ?? `fails "${error.keyword}"`),
    })
  }
  return zodNow().NEVER
}

/** A zod schema that validates with `validate` and outputs a copy with defaults filled in. */
function ajvSchema<Input>(validate: ValidateFunction): z.ZodType<Input> {
  return zodNow()
    .unknown()
    .transform((value, ctx) =>
      validated<Input>(validate, value, ctx),
    ) as unknown as z.ZodType<Input>
}

/**
 * {@link ajvSchema} for a runtime that loads Ajv asynchronously: the check is async (the loop's
 * `safeParseAsync` waits for it), and a schema Ajv cannot compile fails the call.
 */
function lateAjvSchema<Input>(later: () => Promise<ValidateFunction>): z.ZodType<Input> {
  const zod = zodNow()
  return zod.unknown().transform(async (value, ctx) => {
    let validate: ValidateFunction
    try {
      validate = await later()
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: (error as Error).message })
      return zod.NEVER
    }
    return validated<Input>(validate, value, ctx)
  }) as unknown as z.ZodType<Input>
}

/**
 * Define a tool from a JSON Schema instead of a zod schema (a schema from an MCP server, an
 * OpenAPI document, a config file): the model sees the schema as given, and the loop validates
 * every call's input against it with Ajv before `execute` runs, a failure being the usual
 * `ToolInputError` result naming each bad path. Every other option is `defineTool`'s and is
 * checked and kept the same way. Throws a `ValidationError` for a bad name, a schema whose top
 * level is not an object, or one Ajv cannot compile.
 *
 * @example
 * ```ts
 * const add = jsonSchemaTool<{ a: number; b: number }>({
 *   name: 'add',
 *   description: 'Add two numbers',
 *   inputSchema: {
 *     type: 'object',
 *     properties: { a: { type: 'number' }, b: { type: 'number' } },
 *     required: ['a', 'b'],
 *   },
 *   execute: ({ a, b }) => String(a + b),
 * })
 * ```
 */
export function jsonSchemaTool<Input = Record<string, unknown>>(
  options: JsonSchemaToolOptions<Input>,
): AgentTool<Input> {
  if (typeof options !== 'object' || options === null) {
    invalidArgument('jsonSchemaTool', 'options', 'an object', options)
  }
  const { inputSchema, execute, approval, ...rest } = options
  if (typeof inputSchema !== 'object' || inputSchema === null || Array.isArray(inputSchema)) {
    invalidArgument('jsonSchemaTool', 'options.inputSchema', 'a JSON Schema object', inputSchema)
  }
  // defineTool checks (and keeps) every other option; its placeholder schema is replaced below
  const base = defineTool({
    ...rest,
    ...(approval === undefined ? {} : { approval: approval as ApprovalPolicy<unknown> }),
    input: zodNow().object({}),
    execute: execute as DefineToolOptions<z.ZodType>['execute'],
  })
  const { $schema: _dialect, ...shown } = inputSchema
  const definition = parseWith(
    ToolDefinitionCheck,
    { name: base.name, description: base.description, inputSchema: shown },
    `tool "${base.name}" (its inputSchema must have type "object" at the top level)`,
  )
  // Ajv is loaded on first use (ajv-loader.ts): now in Node, so a bad schema throws here
  const modules = ajvNow()
  let later: Promise<ValidateFunction> | undefined
  const input = modules
    ? ajvSchema<Input>(compile(modules, inputSchema, base.name))
    : lateAjvSchema<Input>(
        () => (later ??= loadAjv().then((m) => compile(m, inputSchema, base.name))),
      )
  const { approval: _checked, ...kept } = base
  // frozen, with a frozen copy of the schema shown: its definition is made once
  return fixDefinition(
    Object.freeze({
      ...kept,
      inputSchema: frozenJson(definition.inputSchema) as JsonSchemaObject,
      input,
      ...(approval === undefined ? {} : { approval }),
      execute: execute as AgentTool<Input>['execute'],
    }),
  )
}
