import type Anthropic from '@anthropic-ai/sdk'
import type { AssistantMessage, ContentBlock, StopReason } from '@contextkit/core'
import type { StreamEvent, StreamParser } from '@contextkit/formatters'
import type { StreamParams } from './anthropic-request.js'

/** A model reply read from the stream (steps 8): the message plus what the parser saw. */
export interface StreamedReply {
  message: AssistantMessage
  /** Text chunks received from the provider. */
  chunks: number
  /** Tool calls cut off by the end of the stream (never executed). */
  incompleteCalls: number
}

/** Fold parser events into content blocks, in order; adjacent deltas merge into one block. */
function blocksFromEvents(events: readonly StreamEvent[]): {
  content: ContentBlock[]
  incomplete: number
} {
  const content: ContentBlock[] = []
  let incomplete = 0
  for (const event of events) {
    const last = content[content.length - 1]
    if (event.type === 'text-delta') {
      if (last?.type === 'text') last.text += event.text
      else content.push({ type: 'text', text: event.text })
    } else if (event.type === 'thinking-start') {
      content.push({ type: 'thinking', thinking: '' })
    } else if (event.type === 'thinking-delta') {
      if (last?.type === 'thinking') last.thinking += event.text
      else content.push({ type: 'thinking', thinking: event.text })
    } else if (event.type === 'tool-call-end') {
      if (event.incomplete) incomplete++
      else content.push(event.call)
    }
  }
  return { content: content.filter((b) => b.type !== 'text' || b.text !== ''), incomplete }
}

function stopReasonOf(message: Anthropic.Messages.Message): StopReason {
  return message.stop_reason ?? 'end_turn'
}

/**
 * Stream one request and read it back through the formatter's parser: text deltas go through
 * `parser.processChunk` (seeded with the request's `assistantPrefill` via `push`, so tags opened
 * in the prefill are understood), native thinking and `tool_use` blocks come from the SDK's final
 * message. Provider errors are thrown as the SDK's `APIError`s.
 */
export async function streamReply(
  client: Anthropic,
  params: StreamParams,
  parser: StreamParser,
  assistantPrefill: string | undefined,
  signal?: AbortSignal,
): Promise<StreamedReply> {
  parser.push(assistantPrefill ?? '')
  const stream = client.messages.stream(params, signal ? { signal } : {})
  const events: StreamEvent[] = []
  let chunks = 0
  for await (const event of stream) {
    if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') {
      chunks++
      events.push(...parser.processChunk(event.delta.text))
    }
  }
  events.push(...parser.flush())
  const final = await stream.finalMessage()
  const parsed = blocksFromEvents(events)
  const native: ContentBlock[] = []
  const calls: ContentBlock[] = []
  for (const block of final.content) {
    if (block.type === 'thinking') {
      native.push({ type: 'thinking', thinking: block.thinking, signature: block.signature })
    } else if (block.type === 'tool_use') {
      const input =
        typeof block.input === 'object' && block.input !== null && !Array.isArray(block.input)
          ? (block.input as Record<string, unknown>)
          : {}
      calls.push({ type: 'tool_call', id: block.id, name: block.name, input })
    }
  }
  const usage = final.usage
  const message: AssistantMessage = {
    role: 'assistant',
    content: [...native, ...parsed.content, ...calls],
    stopReason: stopReasonOf(final),
    usage: {
      input: usage.input_tokens,
      output: usage.output_tokens,
      cacheRead: usage.cache_read_input_tokens ?? 0,
      cacheWrite: usage.cache_creation_input_tokens ?? 0,
    },
  }
  if (final.stop_sequence) message.stopSequence = final.stop_sequence
  return { message, chunks, incompleteCalls: parsed.incomplete }
}
