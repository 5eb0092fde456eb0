/**
 * Fast structural checks of messages, content blocks, tools and sections. Each accepts only what
 * the matching zod schema of this package accepts (a property test holds them to that), and is an
 * order of magnitude cheaper than a zod parse, so a hot path (every `buildMessages` call, every
 * prefill) validates without paying zod per message per call. When a check says no, run the zod
 * schema (`parseWith`) to report the exact issues.
 */
import { knownStart, rememberChecked } from './checked-lists.js'
import { isPlainObject } from './composite-checks.js'
import { exceedsJsonDepth } from './json-depth.js'
import type { ContentBlock, Message, ToolDefinition } from './message-schemas.js'
import { isSealedContent } from './sealed-content.js'
import type { Section } from './sections.js'

type Obj = Record<string, unknown>

function isObject(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

function optional(v: unknown, type: 'string' | 'boolean'): boolean {
  return v === undefined || typeof v === type
}

function nonEmpty(v: unknown): boolean {
  return typeof v === 'string' && v.length > 0
}

const MEDIA_TYPES: ReadonlySet<unknown> = new Set([
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
])

function isText(b: Obj): boolean {
  return typeof b.text === 'string'
}

function isImage(b: Obj): boolean {
  return MEDIA_TYPES.has(b.mediaType) && typeof b.data === 'string'
}

function isResultPart(v: unknown): boolean {
  if (!isObject(v)) return false
  return v.type === 'text' ? isText(v) : v.type === 'image' && isImage(v)
}

function isBlock(v: unknown): boolean {
  if (!isObject(v)) return false
  switch (v.type) {
    case 'text':
      return isText(v)
    case 'image':
      return isImage(v)
    case 'thinking':
      return typeof v.thinking === 'string' && optional(v.signature, 'string')
    case 'redacted_thinking':
      return typeof v.data === 'string'
    case 'tool_call':
      return (
        nonEmpty(v.id) &&
        nonEmpty(v.name) &&
        isPlainObject(v.input) &&
        optional(v.raw, 'string') &&
        !exceedsJsonDepth(v.input)
      )
    case 'tool_result': {
      if (!nonEmpty(v.toolCallId) || !optional(v.isError, 'boolean')) return false
      const content = v.content
      if (!Array.isArray(content)) return false
      for (const part of content) if (!isResultPart(part)) return false
      return true
    }
    default:
      return false
  }
}

/** Whether `v` is a `ContentBlock[]` that `ContentBlockSchema.array()` accepts. */
export function isContentBlockArray(v: unknown): v is ContentBlock[] {
  if (!Array.isArray(v)) return false
  for (const b of v) if (!isBlock(b)) return false
  return true
}

/** Whether `m` is a message `MessageSchema` accepts (its content trusted when sealed). */
export function isMessage(m: unknown): boolean {
  if (!isObject(m)) return false
  if (m.role !== 'user' && m.role !== 'assistant') return false
  if (m.participant !== undefined && !nonEmpty(m.participant)) return false
  if (!optional(m.cacheBreakpoint, 'boolean')) return false
  // a sealed message's content was checked when it was sealed and cannot have changed since
  return isSealedContent(m.content) || isContentBlockArray(m.content)
}

/**
 * Whether `v` is a `Message[]` that `MessageSchema.array()` accepts. A list that begins with the
 * messages of one that passed before looks again only at those that were not sealed then (see
 * `checked-lists.ts`): a history given again costs what is new or unsealed in it.
 */
export function isMessageArray(v: unknown): v is Message[] {
  if (!Array.isArray(v)) return false
  const known = knownStart(v)
  for (const i of known.plain) if (!isMessage(v[i])) return false
  for (let i = known.count; i < v.length; i++) if (!isMessage(v[i])) return false
  rememberChecked(v, known)
  return true
}

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/

/** Whether `v` is a `ToolDefinition[]` that `ToolDefinitionSchema.array()` accepts. */
export function isToolArray(v: unknown): v is ToolDefinition[] {
  if (!Array.isArray(v)) return false
  for (const t of v) {
    if (!isObject(t) || typeof t.name !== 'string' || !TOOL_NAME.test(t.name)) return false
    if (typeof t.description !== 'string') return false
    const schema = t.inputSchema
    if (!isObject(schema) || schema.type !== 'object') return false
    if (schema.properties !== undefined && !isPlainObject(schema.properties)) return false
    const required = schema.required
    if (required !== undefined) {
      if (!Array.isArray(required)) return false
      for (const r of required) if (typeof r !== 'string') return false
    }
  }
  return true
}

/** Whether `v` is a `Section[]` that `SectionSchema.array()` accepts. */
export function isSectionArray(v: unknown): v is Section[] {
  if (!Array.isArray(v)) return false
  for (const s of v) {
    if (!isObject(s) || !nonEmpty(s.id) || typeof s.text !== 'string') return false
    if (typeof s.priority !== 'number' || !Number.isFinite(s.priority)) return false
    if (s.cache !== 'stable' && s.cache !== 'volatile') return false
    const shorter = s.shorter
    if (shorter !== undefined) {
      if (!Array.isArray(shorter)) return false
      for (const t of shorter) if (typeof t !== 'string') return false
    }
    if (s.placement !== undefined && s.placement !== 'before' && s.placement !== 'after') {
      return false
    }
    if (s.required !== undefined && typeof s.required !== 'boolean') return false
  }
  return true
}
