import {
  exceedsJsonDepth,
  isSectionArray,
  isToolArray,
  MAX_JSON_DEPTH,
  type Message,
  MessageListCheck,
  parseWith,
  SectionListCheck,
  ToolListCheck,
  type ToolResultBlock,
  ToolResultListCheck,
  ValidationError,
} from '@contextkit/core'
import { checkOptions } from './option-keys.js'
import type { BuildOptions, CheckedBuildOptions } from './types.js'

function fail(what: string, path: string, message: string): never {
  throw new ValidationError(`Invalid ${what}: ${path}: ${message}`, [{ path, message }])
}

function optionalType(
  options: Record<string, unknown>,
  key: string,
  type: 'string' | 'boolean',
): void {
  const value = options[key]
  if (value !== undefined && typeof value !== type) fail('build options', key, `expected ${type}`)
}

/**
 * Check the messages of a `buildMessages` call against core's `MessageListCheck`: a fast
 * structural check on the hot path, a `ValidationError` naming every bad path when it fails
 * (without zod, so importing the formatters never loads it).
 */
export function parseMessages(input: unknown, what = 'messages'): Message[] {
  return parseWith(MessageListCheck, input, what)
}

/**
 * Check {@link BuildOptions} that may come from untyped callers: a wrong type anywhere throws
 * core's `ValidationError` (never a `TypeError` from deep inside a formatter).
 */
export function parseBuildOptions(input: unknown): CheckedBuildOptions {
  if (input === undefined) return {}
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    fail('build options', '(root)', 'expected an object')
  checkOptions(input, 'buildMessages')
  const options = input as Record<string, unknown>
  optionalType(options, 'assistantName', 'string')
  optionalType(options, 'userName', 'string')
  optionalType(options, 'prefill', 'string')
  optionalType(options, 'cacheContextPrefix', 'boolean')
  optionalType(options, 'promptCaching', 'boolean')
  const {
    system,
    tools,
    stopSequences,
    model,
    contextPrefix,
    hasCacheMarker,
    cacheTtl,
    userSections,
  } = options
  if (cacheTtl !== undefined && cacheTtl !== '5m' && cacheTtl !== '1h')
    fail('build options', 'cacheTtl', "expected '5m' or '1h'")
  if (hasCacheMarker !== undefined && typeof hasCacheMarker !== 'function')
    fail('build options', 'hasCacheMarker', 'expected a function (message, index) => boolean')
  if (contextPrefix !== undefined && typeof contextPrefix !== 'string')
    parseMessages(contextPrefix, 'build options contextPrefix')
  if (
    model !== undefined &&
    (typeof model !== 'object' ||
      model === null ||
      typeof (model as { id?: unknown }).id !== 'string' ||
      typeof (model as { supportsPrefill?: unknown }).supportsPrefill !== 'boolean' ||
      !['undefined', 'string'].includes(typeof (model as { thinkingMode?: unknown }).thinkingMode))
  )
    fail(
      'build options',
      'model',
      'expected { id: string, supportsPrefill: boolean, thinkingMode?: string }',
    )
  if (system !== undefined && typeof system !== 'string' && !isSectionArray(system))
    parseWith(SectionListCheck, system, 'build options system')
  if (tools !== undefined && !isToolArray(tools))
    parseWith(ToolListCheck, tools, 'build options tools')
  if (userSections !== undefined && !isSectionArray(userSections))
    parseWith(SectionListCheck, userSections, 'build options userSections')
  if (
    stopSequences !== undefined &&
    !(Array.isArray(stopSequences) && stopSequences.every((s) => typeof s === 'string'))
  )
    fail('build options', 'stopSequences', 'expected an array of strings')
  const thinking = thinkingFlag(options.thinking)
  return thinking === options.thinking
    ? (options as CheckedBuildOptions)
    : { ...(options as BuildOptions), thinking }
}

/** `thinking` as a boolean: `true`/`false`, or the `enabled` of `{ enabled }`. */
function thinkingFlag(value: unknown): boolean | undefined {
  if (value === undefined || typeof value === 'boolean') return value
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    checkOptions(value, 'thinking', 'buildMessages', 'options.thinking')
    const enabled = (value as { enabled?: unknown }).enabled
    if (typeof enabled === 'boolean') return enabled
  }
  return fail('build options', 'thinking', 'expected a boolean or { enabled: boolean }')
}

/**
 * Refuse a tool call input nested deeper than core's `MAX_JSON_DEPTH` (what `buildMessages`
 * refuses through core's message checks) with a `ValidationError` at `path`.
 */
export function checkInputDepth(input: unknown, what: string, path: string): void {
  if (exceedsJsonDepth(input))
    fail(what, path, `tool call input nests deeper than ${MAX_JSON_DEPTH} levels`)
}

/**
 * Validate the argument of `formatToolResults` (core's `ToolResultBlock[]`): a copy with only the
 * fields of a result, `isError` `false` where it is left out (as `ToolResultBlockSchema` parses).
 */
export function parseToolResults(input: unknown): ToolResultBlock[] {
  return parseWith(ToolResultListCheck, input, 'tool results').map((r) => ({
    type: 'tool_result',
    toolCallId: r.toolCallId,
    content: r.content.map((b) =>
      b.type === 'text'
        ? { type: 'text', text: b.text }
        : { type: 'image', mediaType: b.mediaType, data: b.data },
    ),
    isError: r.isError ?? false,
  }))
}

/** A stream chunk or a whole reply must be a string. */
export function checkText(input: unknown, what: string): string {
  if (typeof input !== 'string') fail(what, '(root)', `expected a string, got ${typeof input}`)
  return input
}

/**
 * Whether `model` cannot take an assistant prefill: `supportsPrefill: false`, or thinking that is
 * always on (`thinkingMode: 'adaptive-always'`). `false` when no model is given (not checked).
 */
export function rejectsPrefill(
  model: BuildOptions['model'],
): model is NonNullable<BuildOptions['model']> {
  return model !== undefined && (!model.supportsPrefill || model.thinkingMode === 'adaptive-always')
}
