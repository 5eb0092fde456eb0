/**
 * Turns a complete message into the event sequence the real API streams, and frames events
 * as SSE (`event:` and `data:` lines with equal types).
 */
import { EmulatorConfigError } from './errors.js'
import type { WireMessage, WireResponseBlock, WireStreamEvent } from './wire-types.js'

/** Splits `text` into pieces of at most `size` code points (never inside a surrogate pair). */
export function splitText(text: string, size: number): string[] {
  const points = Array.from(text)
  const out: string[] = []
  for (let i = 0; i < points.length; i += size) out.push(points.slice(i, i + size).join(''))
  return out
}

/** `partial_json` fragments for a tool input: `''` first, then the JSON in up to 3 pieces. */
export function jsonFragments(input: Record<string, unknown>): string[] {
  const json = JSON.stringify(input)
  const size = Math.max(1, Math.ceil(json.length / 3))
  return ['', ...splitText(json, size)]
}

function startBlock(b: WireResponseBlock): WireResponseBlock {
  switch (b.type) {
    case 'text':
      return { type: 'text', text: '' }
    case 'thinking':
      return { type: 'thinking', thinking: '', signature: '' }
    case 'tool_use':
      return { type: 'tool_use', id: b.id, name: b.name, input: {} }
    default:
      return b
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

function blockProblem(b: unknown, i: number): string | undefined {
  if (!isObject(b) || typeof b.type !== 'string') return `content[${i}] must be a block with a type`
  if (b.type === 'text' && typeof b.text !== 'string') return `content[${i}].text must be a string`
  if (b.type === 'thinking' && (typeof b.thinking !== 'string' || typeof b.signature !== 'string'))
    return `content[${i}] needs string thinking and signature`
  if (b.type === 'tool_use') {
    if (typeof b.id !== 'string' || typeof b.name !== 'string' || !isObject(b.input))
      return `content[${i}] needs a string id and name and an object input`
    try {
      JSON.stringify(b.input)
    } catch {
      return `content[${i}].input is not serializable to JSON`
    }
  }
  return undefined
}

/** Why `message` cannot be streamed (a wrong shape, a bad `deltaChars`), or `undefined`. */
function messageProblem(message: unknown, deltaChars: unknown): string | undefined {
  if (!Number.isSafeInteger(deltaChars) || (deltaChars as number) < 1)
    return 'deltaChars must be a positive integer'
  if (!isObject(message) || !Array.isArray(message.content))
    return 'message must be a message with a content array'
  if (!isObject(message.usage) || typeof message.usage.output_tokens !== 'number')
    return 'message.usage.output_tokens must be a number'
  for (let i = 0; i < message.content.length; i++) {
    const problem = blockProblem(message.content[i], i)
    if (problem) return problem
  }
  return undefined
}

/**
 * The events of a streamed reply, in the API's order: `message_start` (empty content, initial
 * usage), `ping`, per block `content_block_start` / deltas / `content_block_stop`,
 * `message_delta` (stop reason, cumulative `output_tokens`), `message_stop`.
 *
 * @param deltaChars - characters per `text_delta` / `thinking_delta` (default 16)
 * @throws EmulatorConfigError when `message` is not a message or `deltaChars` is not a positive
 *   integer.
 */
export function messageEvents(message: WireMessage, deltaChars = 16): WireStreamEvent[] {
  const problem = messageProblem(message, deltaChars)
  if (problem) throw new EmulatorConfigError(`messageEvents: ${problem}`)
  const events: WireStreamEvent[] = [
    {
      type: 'message_start',
      message: {
        ...message,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...message.usage, output_tokens: Math.min(1, message.usage.output_tokens) },
      },
    },
    { type: 'ping' },
  ]
  message.content.forEach((b, index) => {
    events.push({ type: 'content_block_start', index, content_block: startBlock(b) })
    if (b.type === 'text') {
      for (const text of splitText(b.text, deltaChars)) {
        events.push({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } })
      }
    } else if (b.type === 'thinking') {
      for (const thinking of splitText(b.thinking, deltaChars)) {
        events.push({
          type: 'content_block_delta',
          index,
          delta: { type: 'thinking_delta', thinking },
        })
      }
      events.push({
        type: 'content_block_delta',
        index,
        delta: { type: 'signature_delta', signature: b.signature },
      })
    } else if (b.type === 'tool_use') {
      for (const partial_json of jsonFragments(b.input)) {
        events.push({
          type: 'content_block_delta',
          index,
          delta: { type: 'input_json_delta', partial_json },
        })
      }
    }
    events.push({ type: 'content_block_stop', index })
  })
  events.push({
    type: 'message_delta',
    delta: { stop_reason: message.stop_reason, stop_sequence: message.stop_sequence },
    usage: { output_tokens: message.usage.output_tokens },
  })
  events.push({ type: 'message_stop' })
  return events
}

/**
 * One SSE frame: `event: <type>\ndata: <json>\n\n`.
 *
 * @throws EmulatorConfigError when `event` has no string `type` (without line breaks) or cannot
 *   be serialized to JSON.
 */
export function sseFrame(event: { type: string }): string {
  if (!isObject(event) || typeof event.type !== 'string' || /[\r\n]/.test(event.type)) {
    throw new EmulatorConfigError('sseFrame: event must be an object with a one-line string type')
  }
  let json: string
  try {
    json = JSON.stringify(event)
  } catch (cause) {
    throw new EmulatorConfigError('sseFrame: event is not serializable to JSON', { cause })
  }
  return `event: ${event.type}\ndata: ${json}\n\n`
}
