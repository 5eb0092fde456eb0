// Token estimates of messages kept from run to run (issue 46): a history given again to the next
// run is not counted again, message by message, while its messages are unchanged. Only for the
// loop's own default counters, whose count is a pure function of the text; an estimate is used
// again only when its message still holds what it was made from (a message changed in place, a
// tool call's input changed inside, is counted anew).
import {
  type ContentBlock,
  createTokenCounter,
  estimateRequestTokens,
  isSealedContent,
  type Message,
  type ModelInfo,
  type TokenCounter,
  type ToolDefinition,
} from '@contextkit/core'
import { isFixedToolList } from './fixed-tool-lists.js'
import { jsonSnapshot, sameJson } from './same-json.js'

/** An estimate and what it was made from. */
interface Estimated {
  /**
   * What the estimate read of the content, flat (one array to compare, not an object per block):
   * per block its type and the fields the count reads (see {@link shapeOf}).
   */
  shape: unknown[]
  tokens: number
  /**
   * Whether the content was sealed (core's `sealMessages`) when the estimate was made or last
   * found to hold: only then may it be trusted without a look (sealed later, it may have been
   * changed in place between the estimate and the sealing).
   */
  sealed: boolean
}

/** A counter's estimates of messages, kept per content array while the content is unchanged. */
export class MessageEstimates {
  readonly #counter: TokenCounter
  readonly #known = new WeakMap<readonly ContentBlock[], Estimated>()
  readonly #tools = new WeakMap<readonly ToolDefinition[], number>()

  /** Estimates made with `counter` (its count must depend on the text alone). */
  constructor(counter: TokenCounter) {
    this.#counter = counter
  }

  /** Tokens of `message` (core's `estimateRequestTokens`), counted again only when it changed. */
  tokens(message: Message): number {
    const { content } = message
    const known = this.#known.get(content)
    // sealed content (core's `sealMessages`) cannot have changed since it was last seen sealed
    if (known?.sealed) return known.tokens
    if (known !== undefined && holds(content, known.shape)) {
      known.sealed = isSealedContent(content)
      return known.tokens
    }
    const tokens = estimateRequestTokens({ messages: [message] }, this.#counter)
    this.#known.set(content, { shape: shapeOf(content), tokens, sealed: isSealedContent(content) })
    return tokens
  }

  /**
   * Tokens of tool definitions (core's `estimateRequestTokens`): kept for a list that never
   * changes (see `fixed-tool-lists.ts`), counted each time for any other.
   */
  tools(tools: readonly ToolDefinition[]): number {
    const fixed = isFixedToolList(tools)
    let n = fixed ? this.#tools.get(tools) : undefined
    if (n === undefined) {
      n = estimateRequestTokens({ tools }, this.#counter)
      if (fixed) this.#tools.set(tools, n)
    }
    return n
  }
}

/**
 * What an estimate of `content` reads, flat: its length, then per block its type and the fields
 * the count reads (a text, a tool call's name, raw text and input as a JSON snapshot when it has
 * no raw text, a tool result's parts likewise).
 */
function shapeOf(content: readonly ContentBlock[]): unknown[] {
  const shape: unknown[] = [content.length]
  for (const block of content) {
    shape.push(block.type)
    switch (block.type) {
      case 'text':
        shape.push(block.text)
        break
      case 'thinking':
        shape.push(block.thinking)
        break
      case 'redacted_thinking':
        shape.push(block.data)
        break
      case 'tool_call':
        shape.push(block.name, block.raw, block.raw === undefined ? jsonSnapshot(block.input) : 0)
        break
      case 'tool_result':
        shape.push(block.content.length)
        for (const part of block.content)
          shape.push(part.type, part.type === 'text' ? part.text : 0)
        break
    }
  }
  return shape
}

/** Whether `content` still holds what `shape` ({@link shapeOf}) records. */
function holds(content: readonly ContentBlock[], shape: readonly unknown[]): boolean {
  if (shape[0] !== content.length) return false
  let at = 1
  for (const block of content) {
    if (shape[at++] !== block.type) return false
    switch (block.type) {
      case 'text':
        if (shape[at++] !== block.text) return false
        break
      case 'thinking':
        if (shape[at++] !== block.thinking) return false
        break
      case 'redacted_thinking':
        if (shape[at++] !== block.data) return false
        break
      case 'image':
        break
      case 'tool_call': {
        if (shape[at++] !== block.name || shape[at++] !== block.raw) return false
        const input = shape[at++]
        if (block.raw === undefined && (input === undefined || !sameJson(block.input, input)))
          return false
        break
      }
      case 'tool_result':
        if (!partsHold(block.content, shape, at)) return false
        at += 1 + 2 * block.content.length
        break
      default:
        return false
    }
  }
  return at === shape.length
}

/** Whether a tool result's `parts` hold what `shape` records from index `at` on. */
function partsHold(
  parts: readonly { type: string; text?: string }[],
  shape: readonly unknown[],
  at: number,
): boolean {
  if (shape[at] !== parts.length) return false
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i] as { type: string; text?: string }
    if (shape[at + 1 + 2 * i] !== part.type) return false
    if (shape[at + 2 + 2 * i] !== (part.type === 'text' ? part.text : 0)) return false
  }
  return true
}

/** The loop's default counters, one per model id and tokenizer factor (a handful per process). */
const defaults = new Map<string, { counter: TokenCounter; estimates: MessageEstimates }>()
/** At most this many default counters are kept (the oldest out first). */
const MAX_DEFAULTS = 64
const shared = new WeakMap<TokenCounter, MessageEstimates>()

/**
 * The loop's default token counter for `model` (core `createTokenCounter({ model })`): the same
 * object for every run of the same model, with its estimates of messages shared by those runs
 * (see {@link sharedEstimates}).
 */
export function defaultCounterFor(model: ModelInfo): TokenCounter {
  const key = `${model.id}\u0000${model.tokenizerFactor}`
  let known = defaults.get(key)
  if (known === undefined) {
    const counter = createTokenCounter({ model })
    known = { counter, estimates: new MessageEstimates(counter) }
    if (defaults.size >= MAX_DEFAULTS) defaults.delete(defaults.keys().next().value as string)
    defaults.set(key, known)
    shared.set(counter, known.estimates)
  }
  return known.counter
}

/** Whether `counter` is one of {@link defaultCounterFor} (its count a pure function of the text). */
export function isDefaultCounter(counter: TokenCounter): boolean {
  return shared.has(counter)
}

/**
 * The estimates of messages kept across runs for `counter`: only for a counter of
 * {@link defaultCounterFor} (a caller's counter may answer differently over time).
 */
export function sharedEstimates(counter: TokenCounter): MessageEstimates | undefined {
  return shared.get(counter)
}
