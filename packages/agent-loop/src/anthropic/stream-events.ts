import type Anthropic from '@anthropic-ai/sdk'
import type { StopReason, Usage } from '@contextkit/core'
import { StopReasonSchema } from '@contextkit/core/schemas'
import type { ProviderEvent } from '../provider/contract.js'
import { PROVIDER_WARNINGS } from '../provider/warnings.js'

interface OpenBlock {
  kind: 'text' | 'thinking' | 'tool_use' | 'other'
  id?: string
  name?: string
  json: string
  signature: string
}

function usageOf(raw: Partial<Record<string, unknown>> | null | undefined): Partial<Usage> {
  const out: Partial<Usage> = {}
  const n = (v: unknown): number | undefined => (typeof v === 'number' && v >= 0 ? v : undefined)
  const input = n(raw?.input_tokens)
  const output = n(raw?.output_tokens)
  const read = n(raw?.cache_read_input_tokens)
  const write = n(raw?.cache_creation_input_tokens)
  if (input !== undefined) out.input = input
  if (output !== undefined) out.output = output
  if (read !== undefined) out.cacheRead = read
  if (write !== undefined) out.cacheWrite = write
  return out
}

/**
 * Turns the Messages API's raw stream events into provider events, one reply at a time: text,
 * thinking (with its signature), native `tool_use` with its partial JSON streamed and parsed at
 * the block's end, usage including the cache counters, and the stop reason.
 */
export class AnthropicEventMapper {
  readonly #blocks = new Map<number, OpenBlock>()
  #usage: Usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }
  #stopReason: StopReason = 'end_turn'
  #stopSequence: string | undefined
  #response: { responseId?: string; responseModel?: string } = {}
  /** `true` once `message_stop` arrived. */
  stopped = false

  /** The provider events one raw SSE event stands for (often none, sometimes several). */
  map(event: Anthropic.Messages.RawMessageStreamEvent): ProviderEvent[] {
    switch (event.type) {
      case 'message_start': {
        const { id, model } = event.message
        this.#response = {
          ...(typeof id === 'string' ? { responseId: id } : {}),
          ...(typeof model === 'string' ? { responseModel: model } : {}),
        }
        this.#usage = { ...this.#usage, ...usageOf(event.message.usage as never) }
        return [{ type: 'usage', usage: { ...this.#usage } }]
      }
      case 'content_block_start':
        return this.#start(event.index, event.content_block)
      case 'content_block_delta':
        return this.#delta(event.index, event.delta)
      case 'content_block_stop':
        return this.#stop(event.index)
      case 'message_delta': {
        const reason = StopReasonSchema.safeParse(event.delta.stop_reason)
        if (event.delta.stop_reason !== null)
          this.#stopReason = reason.success ? reason.data : 'end_turn'
        if (event.delta.stop_sequence) this.#stopSequence = event.delta.stop_sequence
        this.#usage = { ...this.#usage, ...usageOf(event.usage as never) }
        const events: ProviderEvent[] = [{ type: 'usage', usage: { ...this.#usage } }]
        if (event.delta.stop_reason !== null && !reason.success) {
          events.push({
            type: 'warning',
            code: PROVIDER_WARNINGS.unknownStopReason,
            message: `Unknown stop reason ${JSON.stringify(event.delta.stop_reason)}; read as end_turn`,
          })
        }
        return events
      }
      case 'message_stop':
        this.stopped = true
        return []
      default:
        return []
    }
  }

  /** The closing event, once `message_stop` has arrived. */
  finish(requestId: string | undefined): ProviderEvent {
    return {
      type: 'finish',
      stopReason: this.#stopReason,
      ...(this.#stopSequence === undefined ? {} : { stopSequence: this.#stopSequence }),
      usage: { ...this.#usage },
      ...(requestId ? { requestId } : {}),
      ...this.#response,
    }
  }

  #start(
    index: number,
    block: Anthropic.Messages.RawContentBlockStartEvent['content_block'],
  ): ProviderEvent[] {
    const open: OpenBlock = { kind: 'other', json: '', signature: '' }
    this.#blocks.set(index, open)
    if (block.type === 'text') {
      open.kind = 'text'
      return block.text ? [{ type: 'text-delta', text: block.text }] : []
    }
    if (block.type === 'thinking') {
      open.kind = 'thinking'
      open.signature = block.signature ?? ''
      return block.thinking ? [{ type: 'thinking-delta', text: block.thinking }] : []
    }
    if (block.type === 'tool_use') {
      open.kind = 'tool_use'
      open.id = block.id
      open.name = block.name
      return [{ type: 'tool-call-start', id: block.id, name: block.name }]
    }
    if (block.type === 'redacted_thinking') return [{ type: 'redacted-thinking', data: block.data }]
    return [
      {
        type: 'warning',
        code: PROVIDER_WARNINGS.blockDropped,
        message: `A ${block.type} block was left out of the reply (the loop has no block type for it)`,
      },
    ]
  }

  #delta(index: number, delta: Anthropic.Messages.RawContentBlockDelta): ProviderEvent[] {
    const open = this.#blocks.get(index)
    if (!open) return []
    switch (delta.type) {
      case 'text_delta':
        return delta.text ? [{ type: 'text-delta', text: delta.text }] : []
      case 'thinking_delta':
        return delta.thinking ? [{ type: 'thinking-delta', text: delta.thinking }] : []
      case 'signature_delta':
        open.signature += delta.signature
        return []
      case 'input_json_delta':
        open.json += delta.partial_json
        return delta.partial_json
          ? [{ type: 'tool-call-delta', id: open.id ?? '', partialJson: delta.partial_json }]
          : []
      default:
        return []
    }
  }

  #stop(index: number): ProviderEvent[] {
    const open = this.#blocks.get(index)
    this.#blocks.delete(index)
    if (!open) return []
    if (open.kind === 'thinking') {
      return [{ type: 'thinking-end', ...(open.signature ? { signature: open.signature } : {}) }]
    }
    if (open.kind !== 'tool_use') return []
    const end = { type: 'tool-call-end' as const, id: open.id ?? '', name: open.name ?? '' }
    if (open.json.trim() === '') return [{ ...end, input: {} }]
    try {
      const input: unknown = JSON.parse(open.json)
      if (typeof input === 'object' && input !== null && !Array.isArray(input)) {
        return [{ ...end, input: input as Record<string, unknown> }]
      }
      return [{ ...end, input: {}, parseError: 'the input is not a JSON object' }]
    } catch (error) {
      return [
        {
          ...end,
          input: {},
          parseError: `the input is not valid JSON (${error instanceof Error ? error.message : String(error)})`,
        },
      ]
    }
  }
}
