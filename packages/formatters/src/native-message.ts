// One message in the native format, rendered once per content and shared while it is unchanged
// (issue 46: a model call's cost must not grow with the history it resends). The rendering is
// remembered per content array (a loop's copies of a message that only set `cacheBreakpoint`
// share it) together with a shallow copy of what it was made from; a later request uses it only
// when the message still holds the same values, so a message changed in place is rendered again.
// What is shared is frozen: a request that must change a shared message (a merge, a cache marker,
// the prefill) changes a copy ({@link writableMessage}). A sealed message (core's `sealMessages`)
// is trusted without that comparison.
import { type ContentBlock, isSealedContent, type Message } from '@contextkit/core'
import { toImageBlock } from './media.js'
import type { FormattedBlock, FormattedMessage } from './types.js'

/** A core block as the native format sends it (a fresh object). */
export function toFormatted(block: ContentBlock): FormattedBlock {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text }
    case 'image':
      return toImageBlock(block)
    case 'thinking':
      return block.signature === undefined
        ? { type: 'thinking', thinking: block.thinking }
        : { type: 'thinking', thinking: block.thinking, signature: block.signature }
    case 'redacted_thinking':
      return { type: 'redacted_thinking', data: block.data }
    case 'tool_call':
      return { type: 'tool_use', id: block.id, name: block.name, input: block.input }
    case 'tool_result':
      return {
        type: 'tool_result',
        tool_use_id: block.toolCallId,
        content: block.content.map((c) =>
          c.type === 'text' ? { type: 'text', text: c.text } : toImageBlock(c),
        ),
        ...(block.isError ? { is_error: true } : {}),
      }
  }
}

/**
 * Blocks as the API takes them: it rejects whitespace-only text blocks, so such text joins the
 * text block before it (nothing is glued together) or, with none, is dropped. Changes the text
 * blocks of `blocks` (fresh ones) in place.
 */
export function withoutBlankText(blocks: readonly FormattedBlock[]): FormattedBlock[] {
  const kept: FormattedBlock[] = []
  for (const b of blocks) {
    const before = kept[kept.length - 1]
    if (b.type !== 'text' || b.text.trim() !== '') kept.push(b)
    else if (before?.type === 'text') before.text += b.text
  }
  return kept
}

/** A remembered rendering and what it was made from. */
interface Rendered {
  role: Message['role']
  /** Shallow copies of the message's blocks as rendered (a tool result's parts copied too). */
  blocks: ContentBlock[]
  /** The rendered message, frozen; `undefined` when no block is left to send. */
  message: FormattedMessage | undefined
  /**
   * Whether the content was sealed (core's `sealMessages`) when rendered or last found to hold:
   * only then is it trusted without a look (sealed later, it may have changed in between).
   */
  sealed: boolean
}

const rendered = new WeakMap<readonly ContentBlock[], Rendered>()

/** A shallow copy of `block` (of a tool result's parts too): what its rendering read. */
function snapshot(block: ContentBlock): ContentBlock {
  return block.type === 'tool_result'
    ? { ...block, content: block.content.map((c) => ({ ...c })) }
    : { ...block }
}

/**
 * Whether `block` still holds what `was` holds, field by field as the rendering reads them (a
 * tool call's `input` by reference: the rendering sends that very object).
 */
function sameBlock(block: ContentBlock, was: ContentBlock): boolean {
  switch (block.type) {
    case 'text':
      return was.type === 'text' && block.text === was.text
    case 'image':
      return was.type === 'image' && block.data === was.data && block.mediaType === was.mediaType
    case 'thinking':
      return (
        was.type === 'thinking' &&
        block.thinking === was.thinking &&
        block.signature === was.signature
      )
    case 'redacted_thinking':
      return was.type === 'redacted_thinking' && block.data === was.data
    case 'tool_call':
      return (
        was.type === 'tool_call' &&
        block.id === was.id &&
        block.name === was.name &&
        block.input === was.input
      )
    case 'tool_result': {
      if (was.type !== 'tool_result' || block.toolCallId !== was.toolCallId) return false
      if (block.isError !== was.isError || block.content.length !== was.content.length) return false
      for (let i = 0; i < block.content.length; i++) {
        if (!sameBlock(block.content[i] as ContentBlock, was.content[i] as ContentBlock))
          return false
      }
      return true
    }
    default:
      return false
  }
}

/** Whether `message` still holds what it held when `known` was rendered. */
function holds(message: Message, known: Rendered): boolean {
  const { content } = message
  if (message.role !== known.role || content.length !== known.blocks.length) return false
  for (let i = 0; i < content.length; i++) {
    if (!sameBlock(content[i] as ContentBlock, known.blocks[i] as ContentBlock)) return false
  }
  return true
}

/**
 * Whether `message` still holds what it held when `known` was rendered: content seen sealed
 * (core's `sealMessages`) cannot have changed since, so only the role is compared.
 */
function sealedOrHolds(message: Message, known: Rendered): boolean {
  if (known.sealed) return message.role === known.role
  if (!holds(message, known)) return false
  known.sealed = isSealedContent(message.content)
  return true
}

/** Freeze a rendered message, its blocks and their parts; never a tool call's `input` (the caller's). */
function freezeRendered(message: FormattedMessage): FormattedMessage {
  for (const b of message.content) {
    if (b.type === 'image') Object.freeze(b.source)
    if (b.type === 'tool_result') {
      for (const c of b.content) {
        if (c.type === 'image') Object.freeze(c.source)
        Object.freeze(c)
      }
      Object.freeze(b.content)
    }
    Object.freeze(b)
  }
  Object.freeze(message.content)
  return Object.freeze(message)
}

/** A frozen copy of `message` and of its blocks (a request's own message, to share from now on). */
export function frozenCopy(message: FormattedMessage): FormattedMessage {
  return freezeRendered({ role: message.role, content: message.content.map((b) => ({ ...b })) })
}

/**
 * `message` in the native format: its blocks as sent (see {@link withoutBlankText}), before any
 * merge with a neighbour, speaker label, cache marker or prefill; `undefined` when no block is
 * left. Frozen and shared by every request holding the same unchanged content: write through
 * {@link writableMessage}. A message changed in place since is rendered again.
 */
export function nativeMessage(message: Message): FormattedMessage | undefined {
  const known = rendered.get(message.content)
  if (known !== undefined && sealedOrHolds(message, known)) return known.message
  const blocks = withoutBlankText(message.content.map(toFormatted))
  const out =
    blocks.length === 0 ? undefined : freezeRendered({ role: message.role, content: blocks })
  rendered.set(message.content, {
    role: message.role,
    blocks: message.content.map(snapshot),
    message: out,
    sealed: isSealedContent(message.content),
  })
  return out
}

/**
 * `out[index]`, made changeable: a shared (frozen) message is replaced by a copy with copies of
 * its blocks (a tool result's parts stay shared: nothing changes them); one already owned by
 * this request is returned as it is.
 */
export function writableMessage(out: FormattedMessage[], index: number): FormattedMessage {
  const message = out[index] as FormattedMessage
  if (!Object.isFrozen(message)) return message
  const copy: FormattedMessage = {
    role: message.role,
    content: message.content.map((b) => ({ ...b })),
  }
  out[index] = copy
  return copy
}
