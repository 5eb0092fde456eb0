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
  /** Shallow copies of the message's blocks (a tool result's parts copied too). */
  blocks: ContentBlock[]
  /** Each tool call's input as a JSON snapshot (what the estimate counted when it has no `raw`). */
  inputs: unknown[]
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
    if (known !== undefined && holds(content, known)) {
      known.sealed = isSealedContent(content)
      return known.tokens
    }
    const tokens = estimateRequestTokens({ messages: [message] }, this.#counter)
    this.#known.set(content, {
      blocks: content.map(snapshot),
      inputs: content.map(inputJson),
      tokens,
      sealed: isSealedContent(content),
    })
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

/** A shallow copy of `block` (of a tool result's parts too): what its estimate read. */
function snapshot(block: ContentBlock): ContentBlock {
  return block.type === 'tool_result'
    ? { ...block, content: block.content.map((c) => ({ ...c })) }
    : { ...block }
}

/** A tool call's input as a JSON snapshot, when the estimate counts it (no `raw`). */
function inputJson(block: ContentBlock): unknown {
  return block.type === 'tool_call' && block.raw === undefined
    ? jsonSnapshot(block.input)
    : undefined
}

/** Whether `content` still holds what the estimate `known` was made from. */
function holds(content: readonly ContentBlock[], known: Estimated): boolean {
  if (content.length !== known.blocks.length) return false
  for (let i = 0; i < content.length; i++) {
    const block = content[i] as ContentBlock
    if (!sameBlock(block, known.blocks[i] as ContentBlock)) return false
    if (block.type === 'tool_call' && block.raw === undefined) {
      const was = known.inputs[i]
      if (was === undefined || !sameJson(block.input, was)) return false
    }
  }
  return true
}

/** Whether `block` holds what `was` holds, as far as its estimate reads it (inputs aside). */
function sameBlock(block: ContentBlock, was: ContentBlock): boolean {
  switch (block.type) {
    case 'text':
      return was.type === 'text' && block.text === was.text
    case 'thinking':
      return was.type === 'thinking' && block.thinking === was.thinking
    case 'redacted_thinking':
      return was.type === 'redacted_thinking' && block.data === was.data
    case 'image':
      return was.type === 'image'
    case 'tool_call':
      return was.type === 'tool_call' && block.name === was.name && block.raw === was.raw
    case 'tool_result':
      return (
        was.type === 'tool_result' &&
        block.content.length === was.content.length &&
        block.content.every((c, i) => sameBlock(c, was.content[i] as ContentBlock))
      )
    default:
      return false
  }
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
