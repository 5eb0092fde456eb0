/**
 * A reply as a provider would return it, for middleware tests: one text block, a stop reason
 * (default `end_turn`) and zero usage. Structurally a core `AssistantMessage` (typed here without
 * importing core, which the repository root does not install).
 */
export function reply<S extends string = 'end_turn'>(
  text: string,
  stopReason: S = 'end_turn' as S,
): {
  role: 'assistant'
  content: { type: 'text'; text: string }[]
  stopReason: S
  usage: { input: number; output: number; cacheRead: number; cacheWrite: number }
} {
  return {
    role: 'assistant',
    content: [{ type: 'text', text }],
    stopReason,
    usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  }
}
