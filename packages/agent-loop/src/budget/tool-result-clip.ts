import {
  type ContentBlock,
  isSealedMessage,
  type Message,
  sealMessages,
  type TokenCounter,
  type ToolResultBlock,
} from '@contextkit/core'
import { isDefaultCounter } from './message-estimates.js'

/** The marker put where the middle of an oversized tool result was left out. */
export function clippedMarker(chars: number, tokens: number): string {
  return `\n[… ${chars} characters (~${tokens} tokens) of this tool result were left out to fit the context window …]\n`
}

/**
 * Cuts oversized tool results to head + tail with a marker saying how much was left out, for the
 * requests only: the run's messages and the session keep the full text. Each message is clipped
 * once and the clipped copy is kept (same object on every call), so token counts and prompt-cache
 * prefixes stay stable from call to call.
 */
export class ToolResultClipper {
  #maxTokens: number
  readonly #counter: TokenCounter
  /** The share of a context window the limit follows (the default limit); none: fixed. */
  readonly #windowShare: number | undefined
  #memo = new WeakMap<Message, Message>()
  #lists = new WeakMap<readonly Message[], readonly Message[]>()
  /** The loop's default counter behind `counter`, whose clips of sealed messages runs share. */
  readonly #shareBy: TokenCounter | undefined
  /** Sealed messages as clipped at the current limit, shared by every run (see `sharedClips`). */
  #shared: WeakMap<Message, Message> | undefined

  /**
   * A clipper cutting tool results to `maxTokens` as `counter` counts them; `shareBy`: the loop's
   * default counter `counter` counts as (sealed messages are then clipped once for every run).
   */
  constructor(
    maxTokens: number,
    counter: TokenCounter,
    windowShare?: number,
    shareBy?: TokenCounter,
  ) {
    this.#maxTokens = maxTokens
    this.#counter = counter
    this.#windowShare = windowShare
    this.#shareBy = shareBy !== undefined && isDefaultCounter(shareBy) ? shareBy : undefined
    this.#shared = this.#shareBy && sharedClips(this.#shareBy, maxTokens)
  }

  /** The most tokens a tool result is sent with. */
  get maxTokens(): number {
    return this.#maxTokens
  }

  /**
   * A smaller context window is in force (a server stated it): a limit that is a share of the
   * window (the default) shrinks to that share of it; a limit the caller gave stays. Clipped
   * copies made under the old limit are dropped.
   */
  followWindow(window: number): void {
    if (this.#windowShare === undefined) return
    const limit = Math.max(1, Math.floor(window * this.#windowShare))
    if (limit >= this.#maxTokens) return
    this.#maxTokens = limit
    this.#memo = new WeakMap()
    this.#lists = new WeakMap()
    this.#shared = this.#shareBy && sharedClips(this.#shareBy, limit)
  }

  /** `message` with its oversized tool results clipped (the same object when none is). */
  message(message: Message): Message {
    // only a user message with tool results can change: the rest need no memo entry
    if (!hasToolResult(message)) return message
    // a sealed message (frozen with its content) is clipped alike by every run at this limit
    const shared = isSealedMessage(message) ? this.#shared : undefined
    const memo = shared ?? this.#memo
    let out = memo.get(message)
    if (out === undefined) {
      out = this.#clip(message)
      // a clipped copy of a sealed message is sealed too: what reads it next run trusts it
      if (shared && out !== message) sealMessages([out])
      memo.set(message, out)
    }
    return out
  }

  /** A list with each message clipped (the same list when nothing changed; memoized per list). */
  messages(messages: readonly Message[]): readonly Message[] {
    let out = this.#lists.get(messages)
    if (out === undefined) {
      let changed = false
      const clipped = messages.map((m) => {
        const c = this.message(m)
        if (c !== m) changed = true
        return c
      })
      out = changed ? clipped : messages
      this.#lists.set(messages, out)
    }
    return out
  }

  #clip(message: Message): Message {
    // most results fit: look before copying anything
    if (!message.content.some((b) => b.type === 'tool_result' && this.#oversized(b))) return message
    let changed = false
    const content = message.content.map((block): ContentBlock => {
      if (block.type !== 'tool_result') return block
      const clipped = this.#clipResult(block)
      if (clipped !== block) changed = true
      return clipped
    })
    return changed ? { ...message, content } : message
  }

  /** Whether a text part of `block` is over the limit (what {@link clipText} cuts). */
  #oversized(block: ToolResultBlock): boolean {
    return block.content.some(
      (part) => part.type === 'text' && this.#counter.count(part.text) > this.maxTokens,
    )
  }

  #clipResult(block: ToolResultBlock): ToolResultBlock {
    let changed = false
    const content = block.content.map((part) => {
      if (part.type !== 'text') return part
      const text = clipText(part.text, this.maxTokens, this.#counter)
      if (text === part.text) return part
      changed = true
      return { ...part, text }
    })
    return changed ? { ...block, content } : block
  }
}

/** Clips of sealed messages per default counter and limit (a handful of limits per counter). */
const clipsByCounter = new WeakMap<TokenCounter, Map<number, WeakMap<Message, Message>>>()
/** At most this many limits are kept per counter (the oldest out first). */
const MAX_LIMITS = 16

/** The clips of sealed messages shared by runs clipping at `limit` with the default `counter`. */
function sharedClips(counter: TokenCounter, limit: number): WeakMap<Message, Message> {
  let byLimit = clipsByCounter.get(counter)
  if (byLimit === undefined) {
    byLimit = new Map()
    clipsByCounter.set(counter, byLimit)
  }
  let clips = byLimit.get(limit)
  if (clips === undefined) {
    if (byLimit.size >= MAX_LIMITS) byLimit.delete(byLimit.keys().next().value as number)
    clips = new WeakMap()
    byLimit.set(limit, clips)
  }
  return clips
}

/** Whether `message` is a user message with tool results (the only kind clipping changes). */
function hasToolResult(message: Message): boolean {
  return message.role === 'user' && message.content.some((b) => b.type === 'tool_result')
}

/** Default share of the context window a single tool result may take in a request. */
export const DEFAULT_TOOL_RESULT_SHARE = 0.25

/**
 * A run's clipper: the `toolResultMaxTokens` limit; when it is the default (a quarter of the
 * model's window), it follows the window in force (`window`, and any smaller one learned later).
 * `counter` counts as `shareBy` does (a run's memo of it): when that is the loop's default
 * counter, sealed messages are clipped once for all runs.
 */
export function runClipper(
  o: { toolResultMaxTokens: number; toolResultFollowsWindow: boolean },
  window: number,
  counter: TokenCounter,
  shareBy?: TokenCounter,
): ToolResultClipper {
  const share = o.toolResultFollowsWindow ? DEFAULT_TOOL_RESULT_SHARE : undefined
  const clip = new ToolResultClipper(o.toolResultMaxTokens, counter, share, shareBy)
  clip.followWindow(window)
  return clip
}

/**
 * `text` cut to about `maxTokens`: its head (two thirds) and tail (one third) with
 * {@link clippedMarker} between; the text itself when it fits.
 */
export function clipText(text: string, maxTokens: number, counter: TokenCounter): string {
  const tokens = counter.count(text)
  if (!(tokens > maxTokens)) return text
  const keep = Math.max(0, Math.floor((text.length * maxTokens) / tokens) - 120)
  const head = Math.ceil((keep * 2) / 3)
  const tail = keep - head
  const left = text.length - keep
  const leftTokens = Math.max(1, Math.round((left * tokens) / text.length))
  return text.slice(0, head) + clippedMarker(left, leftTokens) + (tail > 0 ? text.slice(-tail) : '')
}
