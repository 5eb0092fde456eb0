import type { AssistantMessage, ModelPricing, Usage } from '@contextkit/core'
import { type AgentCallUsage, type AgentRunUsage, withCacheHitRate } from './events.js'

/** The sum of two usage records. */
export function addUsage(a: Usage, b: Usage): Usage {
  return {
    input: a.input + b.input,
    output: a.output + b.output,
    cacheRead: a.cacheRead + b.cacheRead,
    cacheWrite: a.cacheWrite + b.cacheWrite,
  }
}

/** A run's usage: the sums with their hit rate and cost, and every call's own figures. */
export function runUsage(
  total: Usage,
  calls: readonly AgentCallUsage[],
  pricing: ModelPricing | undefined,
): AgentRunUsage {
  return { ...withCacheHitRate(total, pricing), calls: [...calls] }
}

/** What is left of an interrupted reply: its text and signed thinking (no call of it ran). */
export function interruptedReply(reply: AssistantMessage): AssistantMessage {
  const content = reply.content.filter(
    (b) =>
      b.type === 'text' ||
      b.type === 'redacted_thinking' ||
      (b.type === 'thinking' && b.signature !== undefined),
  )
  return { ...reply, content }
}
