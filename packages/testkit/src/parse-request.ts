/**
 * Structural validation of a `POST /v1/messages` body: `unknown` in, a typed request or the
 * API-style error message out. Messages mimic the real API's `path: problem` wording.
 */
import type {
  WireMessagesRequest,
  WireRequestBlock,
  WireRequestMessage,
  WireTool,
} from './wire-types.js'

/** Result of {@link parseMessagesRequest}. */
export type ParseResult =
  | { ok: true; request: WireMessagesRequest }
  | { ok: false; message: string }

/** Block types the real API accepts in request content (others are a 400). */
export const REQUEST_BLOCK_TYPES: readonly string[] = [
  'text',
  'image',
  'document',
  'search_result',
  'thinking',
  'redacted_thinking',
  'tool_use',
  'tool_result',
  'server_tool_use',
  'web_search_tool_result',
  'container_upload',
]

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

class BadRequest {
  constructor(readonly message: string) {}
}

function fail(message: string): never {
  throw new BadRequest(message)
}

function parseBlock(value: unknown, path: string): WireRequestBlock {
  if (!isRecord(value)) fail(`${path}: Input should be a valid dictionary or object`)
  const type = value.type
  if (typeof type !== 'string') fail(`${path}.type: Field required`)
  if (!REQUEST_BLOCK_TYPES.includes(type)) {
    fail(
      `${path}: Input tag '${type}' found using 'type' does not match any of the expected tags: ${REQUEST_BLOCK_TYPES.map((t) => `'${t}'`).join(', ')}`,
    )
  }
  const need = (field: string, kind: 'string' | 'object'): void => {
    const v = value[field]
    const okKind = kind === 'string' ? typeof v === 'string' : isRecord(v)
    if (v === undefined) fail(`${path}.${type}.${field}: Field required`)
    if (!okKind) fail(`${path}.${type}.${field}: Input should be a valid ${kind}`)
  }
  switch (type) {
    case 'text':
      need('text', 'string')
      break
    case 'thinking':
      need('thinking', 'string')
      need('signature', 'string')
      break
    case 'redacted_thinking':
      need('data', 'string')
      break
    case 'tool_use':
      need('id', 'string')
      need('name', 'string')
      need('input', 'object')
      break
    case 'tool_result': {
      need('tool_use_id', 'string')
      const content = value.content
      if (content !== undefined && typeof content !== 'string') {
        if (!Array.isArray(content))
          fail(`${path}.tool_result.content: Input should be a valid list`)
        content.forEach((b, i) => {
          parseBlock(b, `${path}.tool_result.content.${i}`)
        })
      }
      break
    }
    case 'image':
    case 'document':
      need('source', 'object')
      break
  }
  return { ...value, type }
}

function parseContent(value: unknown, path: string): WireRequestBlock[] {
  if (typeof value === 'string') return [{ type: 'text', text: value }]
  if (!Array.isArray(value)) fail(`${path}: Input should be a valid list`)
  return value.map((b, i) => parseBlock(b, `${path}.${i}`))
}

function parseMessage(value: unknown, i: number): WireRequestMessage {
  const path = `messages.${i}`
  if (!isRecord(value)) fail(`${path}: Input should be a valid dictionary`)
  const role = value.role
  if (role === undefined) fail(`${path}.role: Field required`)
  if (role !== 'user' && role !== 'assistant') {
    fail(`${path}.role: Input should be 'user' or 'assistant'`)
  }
  if (value.content === undefined) fail(`${path}.content: Field required`)
  return { role, content: parseContent(value.content, `${path}.content`) }
}

function parseTool(value: unknown, i: number): WireTool {
  if (!isRecord(value)) fail(`tools.${i}: Input should be a valid dictionary`)
  if (typeof value.name !== 'string' || value.name === '') fail(`tools.${i}.name: Field required`)
  return { ...value, name: value.name }
}

/**
 * Checks the shape of a Messages API body.
 *
 * @param body - the parsed JSON body (`unknown`)
 * @param requireMaxTokens - `true` for `/v1/messages`; `count_tokens` does not need `max_tokens`
 */
export function parseMessagesRequest(body: unknown, requireMaxTokens: boolean): ParseResult {
  try {
    if (!isRecord(body)) fail('Input should be a valid dictionary or object')
    const model = body.model
    if (model === undefined) fail('model: Field required')
    if (typeof model !== 'string') fail('model: Input should be a valid string')
    const maxTokens = body.max_tokens
    if (maxTokens === undefined && requireMaxTokens) fail('max_tokens: Field required')
    if (maxTokens !== undefined && (!Number.isInteger(maxTokens) || (maxTokens as number) < 1)) {
      fail('max_tokens: Input should be a valid integer greater than or equal to 1')
    }
    if (body.messages === undefined) fail('messages: Field required')
    if (!Array.isArray(body.messages)) fail('messages: Input should be a valid list')
    if (body.messages.length === 0) fail('messages: at least one message is required')
    const messages = body.messages.map(parseMessage)
    const system = body.system === undefined ? [] : parseContent(body.system, 'system')
    if (body.tools !== undefined && !Array.isArray(body.tools))
      fail('tools: Input should be a valid list')
    const tools = ((body.tools as unknown[] | undefined) ?? []).map(parseTool)
    const stops = body.stop_sequences
    if (stops !== undefined) {
      if (!Array.isArray(stops)) fail('stop_sequences: Input should be a valid list')
      stops.forEach((s, i) => {
        if (typeof s !== 'string') fail(`stop_sequences.${i}: Input should be a valid string`)
        if (s.trim() === '') fail('stop_sequences: each stop sequence must contain non-whitespace')
      })
    }
    if (body.stream !== undefined && typeof body.stream !== 'boolean') {
      fail('stream: Input should be a valid boolean')
    }
    const thinking = body.thinking
    const thinkingOn =
      isRecord(thinking) && (thinking.type === 'enabled' || thinking.type === 'adaptive')
    return {
      ok: true,
      request: {
        model,
        max_tokens: maxTokens as number | undefined,
        messages,
        system,
        tools,
        stop_sequences: (stops as string[] | undefined) ?? [],
        stream: body.stream === true,
        thinking: thinkingOn,
        raw: body,
      },
    }
  } catch (e) {
    if (e instanceof BadRequest) return { ok: false, message: e.message }
    throw e
  }
}

/** Consecutive turns of the same role merged into one, as the API does. Pure. */
export function mergeTurns(messages: readonly WireRequestMessage[]): WireRequestMessage[] {
  const out: WireRequestMessage[] = []
  for (const m of messages) {
    const last = out[out.length - 1]
    if (last && last.role === m.role) {
      out[out.length - 1] = { role: m.role, content: [...last.content, ...m.content] }
    } else out.push({ role: m.role, content: [...m.content] })
  }
  return out
}

/** The concatenated text of the text blocks of `blocks`. */
export function textOfBlocks(blocks: readonly WireRequestBlock[]): string {
  let s = ''
  for (const b of blocks) if (b.type === 'text' && typeof b.text === 'string') s += b.text
  return s
}
