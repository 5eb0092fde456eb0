/**
 * An OpenAI-compatible `POST /v1/chat/completions` body, checked and turned into the Messages
 * shape the rest of the emulator works on (validation, the token rule, the cache model, scripts).
 *
 * Mapping: `system` / `developer` messages → the system prompt; `user` text and `image_url`
 * parts (data URLs) → user blocks; an `assistant` message's `content` → text and its
 * `tool_calls` → `tool_use` blocks; a `tool` message → a user `tool_result` block. Tools
 * (`{ type: 'function', function: { name, description, parameters } }`) become Messages tools.
 */
import type { WireMessagesRequest, WireRequestBlock, WireRequestMessage } from './wire-types.js'

/** A checked chat request: the Messages-shaped request plus what only chat has. */
export interface ChatRequest {
  /** The request as the Messages endpoint would have received it. */
  request: WireMessagesRequest
  /** `stream_options.include_usage`: send a last chunk with usage. */
  includeUsage: boolean
  /** The body as received (`request.raw` is its Messages-shaped translation). */
  body: Record<string, unknown>
}

class ChatBadRequest extends Error {}

function fail(message: string): never {
  throw new ChatBadRequest(message)
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

const DATA_URL = /^data:([a-z]+\/[a-z0-9.+-]+);base64,(.*)$/is

function imageBlock(part: Record<string, unknown>, path: string): WireRequestBlock {
  const image = part.image_url
  const url = isRecord(image) ? image.url : image
  if (typeof url !== 'string') fail(`${path}.image_url.url: a string is required`)
  const data = DATA_URL.exec(url)
  if (!data) {
    return { type: 'image', source: { type: 'url', url } }
  }
  return { type: 'image', source: { type: 'base64', media_type: data[1], data: data[2] } }
}

function userContent(content: unknown, path: string): WireRequestBlock[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }]
  if (!Array.isArray(content)) fail(`${path}: a string or a list of parts is required`)
  return content.map((part, i): WireRequestBlock => {
    const where = `${path}.${i}`
    if (!isRecord(part)) fail(`${where}: an object is required`)
    if (part.type === 'text') {
      if (typeof part.text !== 'string') fail(`${where}.text: a string is required`)
      return { type: 'text', text: part.text }
    }
    if (part.type === 'image_url') return imageBlock(part, where)
    return fail(`${where}.type: 'text' or 'image_url' is required`)
  })
}

function textContent(content: unknown, path: string): string {
  if (content === undefined || content === null) return ''
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) fail(`${path}: a string or a list of text parts is required`)
  return content
    .map((part, i) => {
      if (!isRecord(part) || part.type !== 'text' || typeof part.text !== 'string') {
        fail(`${path}.${i}: a text part is required`)
      }
      return part.text
    })
    .join('')
}

function toolUses(calls: unknown, path: string): WireRequestBlock[] {
  if (calls === undefined || calls === null) return []
  if (!Array.isArray(calls)) fail(`${path}: a list is required`)
  return calls.map((call, i) => {
    const where = `${path}.${i}`
    if (!isRecord(call) || typeof call.id !== 'string' || call.id === '') {
      fail(`${where}.id: a string is required`)
    }
    const fn = call.function
    if (!isRecord(fn) || typeof fn.name !== 'string' || fn.name === '') {
      fail(`${where}.function.name: a string is required`)
    }
    if (typeof fn.arguments !== 'string') fail(`${where}.function.arguments: a string is required`)
    let input: unknown
    try {
      input = fn.arguments === '' ? {} : JSON.parse(fn.arguments)
    } catch {
      fail(`${where}.function.arguments: not valid JSON`)
    }
    if (!isRecord(input)) fail(`${where}.function.arguments: a JSON object is required`)
    return { type: 'tool_use', id: call.id, name: fn.name, input }
  })
}

function convertMessage(
  value: unknown,
  i: number,
  system: WireRequestBlock[],
): WireRequestMessage | undefined {
  const path = `messages.${i}`
  if (!isRecord(value)) fail(`${path}: an object is required`)
  switch (value.role) {
    case 'system':
    case 'developer':
      system.push({ type: 'text', text: textContent(value.content, `${path}.content`) })
      return undefined
    case 'user':
      return { role: 'user', content: userContent(value.content, `${path}.content`) }
    case 'assistant': {
      const text = textContent(value.content, `${path}.content`)
      const blocks: WireRequestBlock[] = text === '' ? [] : [{ type: 'text', text }]
      blocks.push(...toolUses(value.tool_calls, `${path}.tool_calls`))
      if (blocks.length === 0) fail(`${path}: content or tool_calls is required`)
      return { role: 'assistant', content: blocks }
    }
    case 'tool': {
      if (typeof value.tool_call_id !== 'string' || value.tool_call_id === '') {
        fail(`${path}.tool_call_id: a string is required`)
      }
      const text = textContent(value.content, `${path}.content`)
      const content = text === '' ? [] : [{ type: 'text', text }]
      return {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: value.tool_call_id, content }],
      }
    }
    default:
      return fail(`${path}.role: one of system, developer, user, assistant, tool is required`)
  }
}

function convertTools(tools: unknown): WireMessagesRequest['tools'] {
  if (tools === undefined || tools === null) return []
  if (!Array.isArray(tools)) fail('tools: a list is required')
  return tools.map((tool, i) => {
    const fn = isRecord(tool) ? tool.function : undefined
    if (!isRecord(tool) || tool.type !== 'function' || !isRecord(fn)) {
      fail(`tools.${i}: { type: 'function', function: {…} } is required`)
    }
    if (typeof fn.name !== 'string' || fn.name === '') fail(`tools.${i}.function.name: required`)
    return {
      name: fn.name,
      description: typeof fn.description === 'string' ? fn.description : '',
      input_schema: isRecord(fn.parameters) ? fn.parameters : { type: 'object' },
    }
  })
}

function stopList(stop: unknown): string[] {
  if (stop === undefined || stop === null) return []
  const list = Array.isArray(stop) ? stop : [stop]
  if (!list.every((s): s is string => typeof s === 'string')) {
    fail('stop: a string or a list of strings is required')
  }
  if (list.length > 4) fail('stop: at most 4 sequences')
  return list
}

function maxTokensOf(body: Record<string, unknown>): number | undefined {
  const value = body.max_completion_tokens ?? body.max_tokens
  if (value === undefined || value === null) return undefined
  if (!Number.isInteger(value) || (value as number) < 1) {
    fail('max_tokens: a positive integer is required')
  }
  return value as number
}

/**
 * Checks a chat completions body and converts it. Returns the problem (an OpenAI-style 400
 * message) or the request in the Messages shape.
 */
export function parseChatRequest(
  body: unknown,
): { ok: true; chat: ChatRequest } | { ok: false; message: string } {
  try {
    if (!isRecord(body)) fail('body must be a JSON object')
    if (typeof body.model !== 'string' || body.model === '') fail('model: a string is required')
    if (!Array.isArray(body.messages) || body.messages.length === 0) {
      fail('messages: a non-empty list is required')
    }
    if (body.stream !== undefined && body.stream !== null && typeof body.stream !== 'boolean') {
      fail('stream: a boolean is required')
    }
    const system: WireRequestBlock[] = []
    const messages: WireRequestMessage[] = []
    body.messages.forEach((m, i) => {
      const converted = convertMessage(m, i, system)
      if (converted) messages.push(converted)
    })
    if (messages.length === 0) fail('messages: at least one user message is required')
    const options = body.stream_options
    const tools = convertTools(body.tools)
    const maxTokens = maxTokensOf(body)
    // what the Messages endpoint's checks read: the same request in its own shape
    const raw: Record<string, unknown> = {
      model: body.model,
      messages,
      ...(maxTokens === undefined ? {} : { max_tokens: maxTokens }),
      ...(system.length > 0 ? { system } : {}),
      ...(tools.length > 0 ? { tools } : {}),
    }
    return {
      ok: true,
      chat: {
        includeUsage: isRecord(options) && options.include_usage === true,
        body,
        request: {
          model: body.model,
          max_tokens: maxTokens,
          messages,
          system,
          tools,
          stop_sequences: stopList(body.stop),
          stream: body.stream === true,
          thinking: false,
          raw,
        },
      },
    }
  } catch (e) {
    if (e instanceof ChatBadRequest) return { ok: false, message: e.message }
    throw e
  }
}
