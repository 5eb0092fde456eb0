// Sealed messages (issue 46): a history kept from run to run, checked and frozen once, so every
// later request trusts each message by identity (the checks, the formatters' renderings, the
// agent loop's token estimates skip comparing its blocks with what they saw before). A message
// nobody sealed is checked on every request as before; sealing is only ever a shortcut.
import { isPlainObject } from './composite-checks.js'
import { parseWith, ValidationError } from './errors.js'
import { MessageListCheck } from './message-checks.js'
import type { ContentBlock, Message } from './message-schemas.js'
import { isSealedContent, markSealed } from './sealed-content.js'

/**
 * Check `messages` as every package does (`ValidationError` naming the bad one), freeze each
 * message through and through (its content array, blocks, tool-result parts and tool-call
 * inputs) and remember them as sealed. Returns `messages` itself. A sealed message cannot be
 * changed (a change throws in strict mode): give a new message instead. A loop's copy that only
 * sets `cacheBreakpoint` keeps the sealed content array and the shortcut. Sealing a message
 * twice is free.
 *
 * @throws ValidationError when a message is not a valid `Message`, or is not plain data: a
 * message, block or part that is a class instance or has a getter, a tool call `input` holding
 * anything but JSON data (plain objects, arrays, strings, finite numbers, booleans, null).
 */
export function sealMessages<T extends readonly Message[]>(messages: T): T {
  parseWith(MessageListCheck, messages, 'sealMessages messages')
  // every input is looked at before anything is frozen: a bad one leaves every message as it was
  messages.forEach((message, index) => {
    plainRecord(message, `${index}`)
    message.content.forEach((block, at) => {
      const path = `${index}.content.${at}`
      plainRecord(block, path)
      if (block.type === 'tool_call') checkJson(block.input, `${path}.input`)
      if (block.type === 'tool_result') {
        for (const [i, part] of block.content.entries()) plainRecord(part, `${path}.content.${i}`)
      }
    })
  })
  for (const message of messages) {
    if (Object.isFrozen(message) && isSealedContent(message.content)) continue // sealed already
    for (const block of message.content) freezeBlock(block)
    Object.freeze(message.content)
    Object.freeze(message)
    markSealed(message.content)
  }
  return messages
}

/** Whether `value` is a sealed message (see {@link sealMessages}): frozen, its content sealed. */
export function isSealedMessage(value: unknown): value is Message {
  return (
    typeof value === 'object' &&
    value !== null &&
    Object.isFrozen(value) &&
    isSealedContent((value as { content?: unknown }).content)
  )
}

function freezeBlock(block: ContentBlock): void {
  if (block.type === 'tool_call') freezeJson(block.input)
  if (block.type === 'tool_result') {
    for (const part of block.content) Object.freeze(part)
    Object.freeze(block.content)
  }
  Object.freeze(block)
}

/** Throw unless `value` is a plain object whose properties are data (no getters: they could change). */
function plainRecord(value: object, path: string): void {
  if (!isPlainObject(value)) notPlain(path, describe(value))
  for (const [key, d] of Object.entries(Object.getOwnPropertyDescriptors(value))) {
    if (!('value' in d)) notPlain(`${path}.${key}`, 'a getter')
  }
}

/** Throw unless `value` is JSON data through and through (plain objects with data properties). */
function checkJson(value: unknown, path: string): void {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return
  if (typeof value === 'number') {
    if (Number.isFinite(value)) return
  } else if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) checkJson(item, `${path}.${i}`)
    return
  } else if (isPlainObject(value)) {
    plainRecord(value, path)
    for (const [key, item] of Object.entries(value)) checkJson(item, `${path}.${key}`)
    return
  }
  notPlain(path, describe(value))
}

function notPlain(path: string, got: string): never {
  throw new ValidationError(
    `Invalid sealMessages messages: ${path}: a sealed message holds plain data only, got ${got}`,
    [{ path, message: 'expected plain data' }],
  )
}

/** Freeze a checked tool call input, all of it. */
function freezeJson(value: unknown): void {
  if (typeof value !== 'object' || value === null) return
  for (const item of Object.values(value)) freezeJson(item)
  Object.freeze(value)
}

function describe(value: unknown): string {
  if (typeof value === 'number') return String(value)
  if (typeof value === 'object' && value !== null) return value.constructor?.name ?? 'an object'
  return typeof value
}
