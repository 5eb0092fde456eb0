/**
 * What the emulator remembers of the thinking it sent, so it can hold a tool-use continuation to
 * the API's rule: when thinking is on, the assistant turn that called tools must come back with
 * its thinking blocks — redacted ones included — unchanged and in order.
 */
import { badRequest, type RequestProblem } from './request-problem.js'
import type { WireMessage, WireRequestBlock, WireRequestMessage } from './wire-types.js'

type Sent =
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string }

function key(b: Sent | WireRequestBlock): string {
  const r = b as Record<string, unknown>
  return r.type === 'redacted_thinking'
    ? JSON.stringify(['redacted_thinking', r.data])
    : JSON.stringify(['thinking', r.thinking, r.signature])
}

/** Thinking blocks of the replies that called tools, by tool-use id. Bounded (oldest forgotten). */
export class ThinkingLedger {
  readonly #byToolUse = new Map<string, string[]>()

  constructor(readonly limit = 10_000) {}

  /** Remembers the thinking blocks of a reply that called tools. */
  record(message: WireMessage): void {
    const thinking = message.content.filter(
      (b): b is Sent => b.type === 'thinking' || b.type === 'redacted_thinking',
    )
    if (thinking.length === 0) return
    const keys = thinking.map(key)
    for (const b of message.content) {
      if (b.type !== 'tool_use') continue
      this.#byToolUse.set(b.id, keys)
      if (this.#byToolUse.size > this.limit) {
        const oldest = this.#byToolUse.keys().next().value
        if (oldest !== undefined) this.#byToolUse.delete(oldest)
      }
    }
  }

  /**
   * The API's answer when the last assistant turn of `merged` called tools the emulator answered
   * with thinking, and its thinking blocks were dropped, reordered or altered; else `undefined`.
   * Applies only with thinking on (`thinking: true`).
   */
  check(merged: readonly WireRequestMessage[], thinking: boolean): RequestProblem | undefined {
    if (!thinking) return undefined
    const index = merged.findLastIndex((m) => m.role === 'assistant')
    const turn = merged[index]
    if (!turn) return undefined
    const call = turn.content.find(
      (b) => b.type === 'tool_use' && this.#byToolUse.has(b.id as string),
    )
    if (!call) return undefined
    const expected = this.#byToolUse.get(call.id as string)!
    const sent = turn.content.filter((b) => b.type === 'thinking' || b.type === 'redacted_thinking')
    if (sent.length === 0) {
      const first = turn.content[0]?.type ?? 'nothing'
      return badRequest(
        `messages.${index}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${first}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable \`thinking\`.`,
      )
    }
    const same = sent.length === expected.length && sent.every((b, k) => key(b) === expected[k])
    if (!same) {
      const k = sent.findIndex((b, i) => key(b) !== expected[i])
      const at = turn.content.indexOf(sent[k < 0 ? sent.length - 1 : k]!)
      return badRequest(
        `messages.${index}.content.${at}: Invalid \`signature\` in \`thinking\` block`,
      )
    }
    return undefined
  }
}
