import { exceedsJsonDepth } from './json-depth.js'
import { isSessionId } from './session-id.js'
import type { SessionEntry } from './session-store.js'
import { STOP_REASONS as STOP_REASON_LIST } from './stop-reasons.js'

/**
 * A fast, conservative check a session store runs before `SessionEntrySchema`: `true` only when `value`
 * is a session entry exactly in the form `SessionEntrySchema` outputs (every default filled in,
 * no extra keys). Such a value is what the schema would return, so it can be kept as it is;
 * anything else (`false`) goes through the schema, which repairs defaults, strips extra keys or
 * rejects it. Being wrong in the `false` direction costs time only; a test checks the `true`
 * direction against the schema on generated entries.
 *
 * Why: on a 10,000-entry session, zod took about two thirds of the parsing in `load` (see the README's
 * Sessions section); every line this store writes is in this normal form.
 */
export function isNormalSessionEntry(value: unknown): value is SessionEntry {
  if (!isRecord(value)) return false
  switch (value.type) {
    case 'message':
      return hasKeys(value, BASE_KEYS, 5) && base(value) && isMessage(value.message)
    case 'session':
      return (
        hasKeys(value, HEADER_KEYS, 4) &&
        Number.isSafeInteger(value.version) &&
        (value.version as number) > 0 &&
        nonEmpty(value.createdAt) &&
        isSessionId(value.id)
      )
    case 'custom':
      return (
        hasKeys(value, CUSTOM_KEYS, 6) &&
        base(value) &&
        nonEmpty(value.customType) &&
        'data' in value
      )
    case 'compaction':
      return (
        onlyKeys(value, COMPACTION_KEYS) &&
        base(value) &&
        typeof value.summary === 'string' &&
        nonEmpty(value.firstKeptId) &&
        optionalCount(value, 'tokensBefore') &&
        optionalCount(value, 'tokensAfter') &&
        (!('reason' in value) || value.reason === 'threshold' || value.reason === 'overflow')
      )
    default:
      return false
  }
}

type Rec = Record<string, unknown>

const BASE_KEYS = new Set(['type', 'id', 'parentId', 'ts', 'message'])
const HEADER_KEYS = new Set(['type', 'version', 'id', 'createdAt'])
const CUSTOM_KEYS = new Set(['type', 'id', 'parentId', 'ts', 'customType', 'data'])
const COMPACTION_KEYS = new Set([
  'type',
  'id',
  'parentId',
  'ts',
  'summary',
  'firstKeptId',
  'tokensBefore',
  'tokensAfter',
  'reason',
])
const MESSAGE_KEYS = new Set(['role', 'content', 'participant', 'cacheBreakpoint'])
const REPLY_KEYS = new Set([...MESSAGE_KEYS, 'stopReason', 'stopSequence', 'usage'])
const USAGE_KEYS = new Set(['input', 'output', 'cacheRead', 'cacheWrite'])
const STOP_REASONS: ReadonlySet<string> = new Set(STOP_REASON_LIST)
const MEDIA_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp'])

function isRecord(value: unknown): value is Rec {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.getPrototypeOf(value) === Object.prototype
  )
}

/** No key outside `allowed`, and `count` keys in all: exactly the keys of a normal form. */
function hasKeys(value: Rec, allowed: ReadonlySet<string>, count: number): boolean {
  let n = 0
  for (const key in value) {
    if (!allowed.has(key)) return false
    n++
  }
  return n === count
}

/** Every key of `value` is in `allowed` (optional keys may be absent). */
function onlyKeys(value: Rec, allowed: ReadonlySet<string>): boolean {
  for (const key in value) if (!allowed.has(key)) return false
  return true
}

function nonEmpty(value: unknown): boolean {
  return typeof value === 'string' && value.length > 0
}

function base(value: Rec): boolean {
  return (
    nonEmpty(value.id) &&
    (value.parentId === null || nonEmpty(value.parentId)) &&
    nonEmpty(value.ts)
  )
}

function isMessage(value: unknown): boolean {
  if (!isRecord(value) || !Array.isArray(value.content)) return false
  if ('participant' in value && !nonEmpty(value.participant)) return false
  if ('cacheBreakpoint' in value && typeof value.cacheBreakpoint !== 'boolean') return false
  for (const block of value.content) if (!isBlock(block)) return false
  if (value.role === 'user') return onlyKeys(value, MESSAGE_KEYS)
  if (value.role !== 'assistant') return false
  if (!('stopReason' in value)) {
    // A plain assistant message: anything of a reply's shape must be a whole, valid reply.
    return onlyKeys(value, MESSAGE_KEYS)
  }
  return (
    onlyKeys(value, REPLY_KEYS) &&
    STOP_REASONS.has(value.stopReason as string) &&
    (!('stopSequence' in value) || typeof value.stopSequence === 'string') &&
    isUsage(value.usage)
  )
}

function isUsage(value: unknown): boolean {
  return (
    isRecord(value) &&
    hasKeys(value, USAGE_KEYS, 4) &&
    count(value.input) &&
    count(value.output) &&
    count(value.cacheRead) &&
    count(value.cacheWrite)
  )
}

/** `key` is absent or a count (an optional `z.number().int().nonnegative()`). */
function optionalCount(value: Rec, key: string): boolean {
  return !(key in value) || count(value[key])
}

function count(value: unknown): boolean {
  return Number.isSafeInteger(value) && (value as number) >= 0
}

function isBlock(value: unknown): boolean {
  if (!isRecord(value)) return false
  switch (value.type) {
    case 'text':
      return typeof value.text === 'string' && hasKeys(value, TEXT_KEYS, 2)
    case 'image':
      return (
        MEDIA_TYPES.has(value.mediaType as string) &&
        typeof value.data === 'string' &&
        hasKeys(value, IMAGE_KEYS, 3)
      )
    case 'thinking':
      return (
        typeof value.thinking === 'string' &&
        onlyKeys(value, THINKING_KEYS) &&
        (!('signature' in value) || typeof value.signature === 'string')
      )
    case 'redacted_thinking':
      return typeof value.data === 'string' && hasKeys(value, REDACTED_KEYS, 2)
    case 'tool_call':
      return (
        nonEmpty(value.id) &&
        nonEmpty(value.name) &&
        isRecord(value.input) &&
        !Object.hasOwn(value.input, '__proto__') &&
        !exceedsJsonDepth(value.input) &&
        onlyKeys(value, CALL_KEYS) &&
        (!('raw' in value) || typeof value.raw === 'string')
      )
    case 'tool_result':
      return (
        nonEmpty(value.toolCallId) &&
        typeof value.isError === 'boolean' &&
        Array.isArray(value.content) &&
        value.content.every(
          (part) =>
            isRecord(part) && (part.type === 'text' || part.type === 'image') && isBlock(part),
        ) &&
        hasKeys(value, RESULT_KEYS, 4)
      )
    default:
      return false
  }
}

const TEXT_KEYS = new Set(['type', 'text'])
const IMAGE_KEYS = new Set(['type', 'mediaType', 'data'])
const THINKING_KEYS = new Set(['type', 'thinking', 'signature'])
const REDACTED_KEYS = new Set(['type', 'data'])
const CALL_KEYS = new Set(['type', 'id', 'name', 'input', 'raw'])
const RESULT_KEYS = new Set(['type', 'toolCallId', 'content', 'isError'])
