/**
 * Builds the assistant message for a request from a scripted reply: prefill continuation,
 * stop-sequence cutting, default stop reason, usage.
 */
import type { CacheUsage } from './cache-model.js'
import type { ReplyBlock } from './script.js'
import { estimateTextTokens } from './tokens.js'
import type { WireMessage, WireResponseBlock, WireStopReason, WireUsage } from './wire-types.js'

/** What {@link buildMessage} needs to know about the request. */
export interface ReplyContext {
  messageId: string
  model: string
  /** Text of the trailing assistant message, if any. */
  prefill: string | undefined
  stopSequences: readonly string[]
  inputTokens: number
  /** What the cache model read and wrote for the request (it sets the usage defaults). */
  cache?: CacheUsage
  /** Makes the id of a tool call that has none. */
  toolId: () => string
  /** Makes the signature of a thinking block that has none. */
  signature: (thinking: string) => string
}

/** Where the earliest stop sequence occurs in `text`, or `undefined`. Pure. */
export function findStop(
  text: string,
  stops: readonly string[],
): { at: number; sequence: string } | undefined {
  let best: { at: number; sequence: string } | undefined
  for (const s of stops) {
    if (s === '') continue
    const at = text.indexOf(s)
    if (at >= 0 && (best === undefined || at < best.at)) best = { at, sequence: s }
  }
  return best
}

/** Output token estimate of response blocks (≥ 1). */
export function estimateOutputTokens(blocks: readonly WireResponseBlock[]): number {
  let n = 0
  for (const b of blocks) {
    if (b.type === 'text') n += estimateTextTokens(b.text)
    else if (b.type === 'thinking') n += estimateTextTokens(b.thinking)
    else if (b.type === 'tool_use') n += estimateTextTokens(b.name + JSON.stringify(b.input))
    else n += estimateTextTokens(b.data)
  }
  return Math.max(1, n)
}

/**
 * The complete assistant message. With a prefill, the first text block continues it: if the
 * scripted text starts with the prefill, that prefix is removed. Text is cut at the earliest
 * stop sequence (the match and every later block dropped, `stop_reason: 'stop_sequence'`).
 */
export function buildMessage(
  blocks: readonly ReplyBlock[],
  stopReason: WireStopReason | undefined,
  usage: Partial<WireMessage['usage']>,
  ctx: ReplyContext,
): WireMessage {
  const content: WireResponseBlock[] = []
  let prefillPending = ctx.prefill !== undefined && ctx.prefill !== ''
  let stopped: string | undefined
  for (const b of blocks) {
    if (b.type === 'text') {
      let text = b.text
      if (prefillPending) {
        prefillPending = false
        if (text.startsWith(ctx.prefill!)) text = text.slice(ctx.prefill!.length)
      }
      const hit = findStop(text, ctx.stopSequences)
      if (hit) {
        content.push({ type: 'text', text: text.slice(0, hit.at) })
        stopped = hit.sequence
        break
      }
      content.push({ type: 'text', text })
    } else if (b.type === 'thinking') {
      content.push({
        type: 'thinking',
        thinking: b.thinking,
        signature: b.signature ?? ctx.signature(b.thinking),
      })
    } else if (b.type === 'redacted_thinking') {
      content.push({ type: 'redacted_thinking', data: b.data })
    } else {
      content.push({ type: 'tool_use', id: b.id ?? ctx.toolId(), name: b.name, input: b.input })
    }
  }
  const reason: WireStopReason =
    stopped !== undefined
      ? 'stop_sequence'
      : (stopReason ?? (content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn'))
  return {
    id: ctx.messageId,
    type: 'message',
    role: 'assistant',
    model: ctx.model,
    content,
    stop_reason: reason,
    stop_sequence: stopped ?? null,
    usage: replyUsage(usage, ctx, content),
  }
}

/** Usage of a reply: scripted overrides, else the cache model's figures, else the estimate. */
function replyUsage(
  usage: Partial<WireUsage>,
  ctx: ReplyContext,
  content: readonly WireResponseBlock[],
): WireUsage {
  const c = ctx.cache
  const creation = usage.cache_creation_input_tokens ?? c?.cache_creation_input_tokens ?? 0
  return {
    input_tokens: usage.input_tokens ?? c?.input_tokens ?? ctx.inputTokens,
    cache_creation_input_tokens: creation,
    cache_read_input_tokens: usage.cache_read_input_tokens ?? c?.cache_read_input_tokens ?? 0,
    ...(c === undefined
      ? {}
      : {
          cache_creation:
            usage.cache_creation_input_tokens === undefined
              ? { ...c.cache_creation }
              : { ephemeral_5m_input_tokens: creation, ephemeral_1h_input_tokens: 0 },
        }),
    output_tokens: usage.output_tokens ?? estimateOutputTokens(content),
  }
}
