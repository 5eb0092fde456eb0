import type {
  LanguageModelV4Content,
  LanguageModelV4GenerateResult,
  LanguageModelV4StreamPart,
  LanguageModelV4StreamResult,
} from '@ai-sdk/provider'
import {
  type AssistantMessage,
  type ContentBlock,
  type ContextMiddleware,
  emptyUsage,
  runFinalize,
  type StopReason,
} from '@contextkit/core'
import type { CallState } from './call-builder.js'

const STOPS: Readonly<Record<string, StopReason>> = {
  stop: 'end_turn',
  length: 'max_tokens',
  'tool-calls': 'tool_use',
  'content-filter': 'refusal',
}

function stopOf(reason: unknown): StopReason {
  const unified =
    typeof reason === 'object' && reason !== null
      ? (reason as { unified?: unknown }).unified
      : reason
  return (typeof unified === 'string' ? STOPS[unified] : undefined) ?? 'end_turn'
}

function parseInput(input: unknown): Record<string, unknown> {
  if (typeof input !== 'string')
    return typeof input === 'object' && input !== null ? (input as Record<string, unknown>) : {}
  try {
    const parsed: unknown = JSON.parse(input)
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : {}
  } catch {
    return {}
  }
}

/** A reply's content as core blocks (text, reasoning as thinking, tool calls). */
function coreBlocks(content: readonly LanguageModelV4Content[]): ContentBlock[] {
  const out: ContentBlock[] = []
  for (const c of content) {
    if (c.type === 'text') out.push({ type: 'text', text: c.text })
    else if (c.type === 'reasoning') out.push({ type: 'thinking', thinking: c.text })
    else if (c.type === 'tool-call')
      out.push({
        type: 'tool_call',
        id: c.toolCallId,
        name: c.toolName,
        input: parseInput(c.input),
      })
  }
  return out
}

/** The reply the model gave, as the loop would hold it: the prefill it continues put back in front. */
function withPrefill(blocks: ContentBlock[], prefill: string | undefined): ContentBlock[] {
  if (!prefill) return blocks
  const at = blocks.findIndex((b) => b.type === 'text')
  const out = [...blocks]
  const first = out[at]
  if (first?.type === 'text') {
    if (!first.text.startsWith(prefill)) out[at] = { type: 'text', text: prefill + first.text }
  } else out.unshift({ type: 'text', text: prefill })
  return out
}

async function finalized(
  middleware: readonly ContextMiddleware[],
  blocks: ContentBlock[],
  stopReason: StopReason,
  state: CallState,
): Promise<AssistantMessage> {
  const reply: AssistantMessage = {
    role: 'assistant',
    content: withPrefill(blocks, state.prefill),
    stopReason,
    usage: emptyUsage(),
  }
  const final = !blocks.some((b) => b.type === 'tool_call')
  return runFinalize(middleware, reply, state.turn, state.memory.run, { final, step: state.step })
}

/** `content` with its text parts replaced by the finalized reply's text. */
function rewriteText(
  content: LanguageModelV4Content[],
  reply: AssistantMessage,
): LanguageModelV4Content[] {
  const texts = reply.content.flatMap((b) => (b.type === 'text' ? [b.text] : []))
  const slots = content.filter((c) => c.type === 'text').length
  if (texts.length === slots) {
    let k = 0
    return content.map((c) => (c.type === 'text' ? { ...c, text: texts[k++] ?? '' } : c))
  }
  // different shapes: all the finalized text in the first text part
  const joined = texts.join('')
  let placed = false
  const out: LanguageModelV4Content[] = []
  for (const c of content) {
    if (c.type !== 'text') out.push(c)
    else if (!placed) {
      placed = true
      out.push({ ...c, text: joined })
    }
  }
  if (!placed && joined !== '') out.unshift({ type: 'text', text: joined })
  return out
}

/** `wrapGenerate`'s result after `finalize`: the text the middleware keep (no prefill). */
export async function finalizeReply(
  middleware: readonly ContextMiddleware[],
  result: LanguageModelV4GenerateResult,
  state: CallState,
): Promise<LanguageModelV4GenerateResult> {
  const reply = await finalized(
    middleware,
    coreBlocks(result.content),
    stopOf(result.finishReason),
    state,
  )
  return { ...result, content: rewriteText(result.content, reply) }
}

/**
 * Holds the first text deltas of a reply while they may still be the prefill echoed back, and drops
 * the echo: the stream shows the continuation once, as `generateText` does.
 */
class EchoFilter {
  #held = ''
  #decided: boolean

  constructor(readonly prefill: string | undefined) {
    this.#decided = !prefill
  }

  /** The text to pass on for `delta` (`''` while undecided). */
  push(delta: string): string {
    if (this.#decided) return delta
    const prefill = this.prefill!
    this.#held += delta
    if (this.#held.length < prefill.length && prefill.startsWith(this.#held)) return ''
    this.#decided = true
    const held = this.#held
    this.#held = ''
    // the reply continues the prefill: the white space between them belongs to neither
    return (held.startsWith(prefill) ? held.slice(prefill.length) : held).replace(/^\s+/, '')
  }

  /** What is still held at the end of the text. */
  end(): string {
    const held = this.#decided ? '' : this.#held
    this.#decided = true
    this.#held = ''
    return held === this.prefill ? '' : held.replace(/^\s+/, '')
  }
}

/**
 * `wrapStream`'s result: the parts pass through as they come (a prefill the model echoes is
 * dropped), and before the `finish` part the collected reply runs through `finalize`, so
 * middleware that act on the final reply (resumption) see it.
 */
export function finalizeStream(
  middleware: readonly ContextMiddleware[],
  result: LanguageModelV4StreamResult,
  state: CallState,
): LanguageModelV4StreamResult {
  const texts = new Map<string, string>()
  const blocks: ContentBlock[] = []
  const echo = new EchoFilter(state.prefill)
  let echoId: string | undefined
  const stream = result.stream.pipeThrough(
    new TransformStream<LanguageModelV4StreamPart, LanguageModelV4StreamPart>({
      async transform(part, controller) {
        if (part.type === 'text-delta') {
          echoId ??= part.id
          const delta = part.id === echoId ? echo.push(part.delta) : part.delta
          texts.set(part.id, (texts.get(part.id) ?? '') + delta)
          if (delta !== '') controller.enqueue({ ...part, delta })
          return
        }
        if (part.type === 'text-end') {
          if (part.id === echoId) {
            const rest = echo.end()
            if (rest !== '') {
              texts.set(part.id, (texts.get(part.id) ?? '') + rest)
              controller.enqueue({ type: 'text-delta', id: part.id, delta: rest })
            }
          }
          blocks.push({ type: 'text', text: texts.get(part.id) ?? '' })
        } else if (part.type === 'reasoning-delta') {
          const last = blocks.at(-1)
          if (last?.type === 'thinking') last.thinking += part.delta
          else blocks.push({ type: 'thinking', thinking: part.delta })
        } else if (part.type === 'tool-call') {
          blocks.push({
            type: 'tool_call',
            id: part.toolCallId,
            name: part.toolName,
            input: parseInput(part.input),
          })
        } else if (part.type === 'finish') {
          try {
            await finalized(middleware, blocks, stopOf(part.finishReason), state)
          } catch (error) {
            controller.enqueue({ type: 'error', error })
          }
        }
        controller.enqueue(part)
      },
    }),
  )
  return { ...result, stream }
}
