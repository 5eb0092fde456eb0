import type {
  ContentBlock,
  ImageBlock,
  Message,
  Section,
  TextBlock,
  ToolDefinition,
} from '@contextkit/core'
import { isRecord } from './is-record.js'

/** A part of an AI SDK prompt message, as far as this package reads and writes it. */
export type Part = Record<string, unknown> & { type: string }

/** An AI SDK prompt message (`LanguageModelV4Message`). */
export type PromptMessage =
  | ({ role: 'system'; content: string } & Record<string, unknown>)
  | ({ role: 'user' | 'assistant' | 'tool'; content: Part[] } & Record<string, unknown>)

/** The AI SDK prompt as core pieces, with where each core message came from. */
export interface CorePrompt {
  /** The system messages, one section each, in order (all `stable`). */
  system: Section[]
  messages: Message[]
  /** For each core message, the AI SDK messages it was made from (to write unchanged ones back as they were). */
  sources: PromptMessage[][]
  /** The `providerOptions` of the caller's system messages, by section id (written back with their text). */
  systemOptions: Map<string, Record<string, unknown>>
}

/** Core messages already made from AI SDK messages (which are never changed in place). */
const CONVERTED = new WeakMap<object, Message>()

const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp'])

/** Base64 of a file part's data (spec v4 wraps it in `{ type: 'data', data }`), when it is inline. */
function inlineData(data: unknown): string | undefined {
  const raw = isRecord(data) && data.type === 'data' ? data.data : data
  if (typeof raw === 'string') return /^[a-z]+:/i.test(raw) ? undefined : raw
  if (raw instanceof Uint8Array) {
    let s = ''
    for (const b of raw) s += String.fromCharCode(b)
    return btoa(s)
  }
  return undefined
}

function imageOf(part: Part): ImageBlock | undefined {
  const mediaType = String(part.mediaType ?? '')
  const data = inlineData(part.data)
  if (!IMAGE_TYPES.has(mediaType) || data === undefined) return undefined
  return { type: 'image', mediaType: mediaType as ImageBlock['mediaType'], data }
}

function textOfOutput(output: unknown): { text: string; isError: boolean; images: ImageBlock[] } {
  if (!isRecord(output)) return { text: '', isError: false, images: [] }
  const isError =
    output.type === 'error-text' ||
    output.type === 'error-json' ||
    output.type === 'execution-denied'
  if (output.type === 'text' || output.type === 'error-text')
    return { text: String(output.value ?? ''), isError, images: [] }
  if (output.type === 'json' || output.type === 'error-json')
    return { text: JSON.stringify(output.value), isError, images: [] }
  if (output.type === 'execution-denied')
    return {
      text: `Denied${output.reason ? `: ${String(output.reason)}` : ''}`,
      isError,
      images: [],
    }
  if (output.type === 'content' && Array.isArray(output.value)) {
    const images: ImageBlock[] = []
    let text = ''
    for (const v of output.value) {
      if (!isRecord(v)) continue
      if (v.type === 'text') text += String(v.text ?? '')
      else {
        const image = imageOf(v as Part)
        if (image) images.push(image)
      }
    }
    return { text, isError: false, images }
  }
  return { text: '', isError, images: [] }
}

function userBlocks(parts: readonly Part[]): ContentBlock[] {
  const out: ContentBlock[] = []
  for (const p of parts) {
    if (p.type === 'text' && typeof p.text === 'string') out.push({ type: 'text', text: p.text })
    else if (p.type === 'file') {
      const image = imageOf(p)
      if (image) out.push(image)
    }
  }
  return out
}

function assistantBlocks(parts: readonly Part[]): ContentBlock[] {
  const out: ContentBlock[] = []
  for (const p of parts) {
    if (p.type === 'text' && typeof p.text === 'string') out.push({ type: 'text', text: p.text })
    else if (p.type === 'reasoning' && typeof p.text === 'string')
      out.push({ type: 'thinking', thinking: p.text })
    else if (
      p.type === 'tool-call' &&
      typeof p.toolCallId === 'string' &&
      typeof p.toolName === 'string'
    ) {
      let input: unknown = p.input
      if (typeof input === 'string') {
        try {
          input = JSON.parse(input)
        } catch {
          input = {}
        }
      }
      out.push({
        type: 'tool_call',
        id: p.toolCallId,
        name: p.toolName,
        input: isRecord(input) ? input : {},
      })
    }
  }
  return out
}

function toolBlocks(parts: readonly Part[]): ContentBlock[] {
  const out: ContentBlock[] = []
  for (const p of parts) {
    if (p.type !== 'tool-result' || typeof p.toolCallId !== 'string') continue
    const { text, isError, images } = textOfOutput(p.output)
    const content: (TextBlock | ImageBlock)[] = text === '' ? [] : [{ type: 'text', text }]
    out.push({
      type: 'tool_result',
      toolCallId: p.toolCallId,
      content: [...content, ...images],
      isError,
    })
  }
  return out
}

/**
 * The AI SDK prompt as core pieces: system messages become stable sections (`system-0`, …);
 * user text and inline images, assistant text, reasoning and tool calls, and tool results (a
 * `tool` message joins the user message that follows it, as core keeps results in user turns)
 * become core messages. Parts core has no block for (files that are not inline images, custom
 * parts) are left out of the core view only: messages that middleware does not change are written
 * back exactly as they came.
 */
export function toCorePrompt(prompt: readonly PromptMessage[]): CorePrompt {
  const system: Section[] = []
  const messages: Message[] = []
  const sources: PromptMessage[][] = []
  const systemOptions = new Map<string, Record<string, unknown>>()
  let pendingTool: { blocks: ContentBlock[]; from: PromptMessage[] } | undefined
  const flushTool = (): void => {
    if (!pendingTool) return
    messages.push({ role: 'user', content: pendingTool.blocks })
    sources.push(pendingTool.from)
    pendingTool = undefined
  }
  for (const m of prompt) {
    if (m.role === 'system') {
      const id = `system-${system.length}`
      system.push({ id, text: m.content, priority: 1000, cache: 'stable' })
      if (isRecord(m.providerOptions)) systemOptions.set(id, m.providerOptions)
      continue
    }
    if (m.role === 'tool') {
      pendingTool ??= { blocks: [], from: [] }
      pendingTool.blocks.push(...toolBlocks(m.content))
      pendingTool.from.push(m)
      continue
    }
    if (m.role === 'user' && pendingTool) {
      // results and the user's next words are one core user turn
      const { blocks, from } = pendingTool
      pendingTool = undefined
      messages.push({ role: 'user', content: [...blocks, ...userBlocks(m.content)] })
      sources.push([...from, m])
      continue
    }
    flushTool()
    // the AI SDK hands the same message objects to every step: convert each once
    let converted = CONVERTED.get(m)
    if (!converted) {
      converted = {
        role: m.role,
        content: m.role === 'user' ? userBlocks(m.content) : assistantBlocks(m.content),
      }
      CONVERTED.set(m, converted)
    }
    messages.push(converted)
    sources.push([m])
  }
  flushTool()
  return { system, messages, sources, systemOptions }
}

/** The call's function tools as core tool definitions. */
export function toCoreTools(tools: unknown): ToolDefinition[] {
  if (!Array.isArray(tools)) return []
  const out: ToolDefinition[] = []
  for (const t of tools) {
    if (!isRecord(t) || t.type !== 'function' || typeof t.name !== 'string') continue
    out.push({
      name: t.name,
      description: typeof t.description === 'string' ? t.description : '',
      inputSchema: (isRecord(t.inputSchema)
        ? t.inputSchema
        : { type: 'object' }) as ToolDefinition['inputSchema'],
    })
  }
  return out
}

/** A core message as AI SDK prompt messages (results as a `tool` message before the user's own words). */
export function fromCoreMessage(m: Message): PromptMessage[] {
  if (m.role === 'assistant') {
    const content: Part[] = []
    for (const b of m.content) {
      if (b.type === 'text') content.push({ type: 'text', text: b.text })
      else if (b.type === 'thinking') content.push({ type: 'reasoning', text: b.thinking })
      else if (b.type === 'tool_call')
        content.push({ type: 'tool-call', toolCallId: b.id, toolName: b.name, input: b.input })
    }
    return [{ role: 'assistant', content }]
  }
  const out: PromptMessage[] = []
  const results: Part[] = []
  const own: Part[] = []
  for (const b of m.content) {
    if (b.type === 'tool_result') {
      const text = b.content.map((c) => (c.type === 'text' ? c.text : '')).join('')
      results.push({
        type: 'tool-result',
        toolCallId: b.toolCallId,
        toolName: 'unknown',
        output: { type: b.isError ? 'error-text' : 'text', value: text },
      })
    } else if (b.type === 'text') own.push({ type: 'text', text: b.text })
    else if (b.type === 'image')
      own.push({ type: 'file', data: { type: 'data', data: b.data }, mediaType: b.mediaType })
  }
  if (results.length > 0) out.push({ role: 'tool', content: results })
  if (own.length > 0) out.push({ role: 'user', content: own })
  return out
}
