/**
 * Each open-model family's own tool format, as its published chat template writes it (the tests
 * render those templates with a Jinja engine and compare strings):
 * - `qwen`: Qwen 2.5 — tools in the system turn inside `<tools>`, calls as `<tool_call>` JSON,
 *   results as `<tool_response>` in a user turn;
 * - `llama3`: Llama 3.1/3.2/3.3 — `Environment: ipython` in the system turn, tools in the first
 *   user turn, a call as a bare `{"name", "parameters"}` JSON reply, results in `ipython` turns;
 * - `mistral`: Mistral Instruct v0.3 — `[AVAILABLE_TOOLS]` before the last user turn, calls as
 *   `[TOOL_CALLS] [...]` with 9-character ids, results as `[TOOL_RESULTS]`.
 */
import { ConfigurationError, type ToolDefinition } from '@contextkit/core'
import type { ChatTemplatePreset } from './chat-templates.js'
import { UnsupportedContentError } from './errors.js'
import { decodeJsonCalls, type NativeCallSyntax } from './native-tool-parser.js'
import { pyJson } from './py-json.js'
import type { FormatWarning } from './types.js'

/** The families with a native tool format. */
export type NativeToolFamily = 'qwen' | 'llama3' | 'mistral'

/** A message as the families' templates read it. */
export type TemplateMessage =
  | { role: 'user' | 'assistant'; content: string; calls?: undefined }
  | { role: 'assistant'; content: string; calls: TemplateCall[] }
  | { role: 'tool'; content: string; callId: string }

/** A tool call of an assistant message. */
export interface TemplateCall {
  id: string
  name: string
  input: Record<string, unknown>
}

/** What a family's renderer needs besides the messages. */
export interface NativeRenderInput {
  system: string
  tools: readonly ToolDefinition[]
  bos: boolean
  /** Llama 3.1's `date_string`. */
  dateString: string
  warnings: FormatWarning[]
}

/** The family of a preset's native tool format; Gemma has none. */
export function nativeToolFamily(preset: ChatTemplatePreset): NativeToolFamily {
  if (preset === 'chatml') return 'qwen'
  if (preset === 'llama3' || preset === 'mistral') return preset
  throw new ConfigurationError(
    `toolFormat 'native': the ${preset} preset has no native tool format; use 'json' or 'xml'`,
  )
}

/** The stop sequences of a family's native format. */
export const NATIVE_STOPS: Readonly<Record<NativeToolFamily, readonly string[]>> = Object.freeze({
  qwen: ['<|im_end|>', '<|endoftext|>'],
  llama3: ['<|eot_id|>', '<|eom_id|>', '<|end_of_text|>'],
  mistral: ['</s>'],
})

/** How each family's replies write calls (for `NativeToolStreamParser`). */
export const NATIVE_CALL_SYNTAX: Readonly<Record<'llama3' | 'mistral', NativeCallSyntax>> = {
  llama3: {
    markers: ['<|python_tag|>'],
    bareJson: true,
    decode: (body) => decodeJsonCalls(body, ['parameters', 'arguments']),
  },
  mistral: {
    markers: ['[TOOL_CALLS]'],
    bareJson: false,
    decode: (body) => decodeJsonCalls(body.replace(/<\/s>\s*$/, ''), ['arguments']),
  },
}

const DEFAULT_QWEN_SYSTEM = 'You are Qwen, created by Alibaba Cloud. You are a helpful assistant.'

function toolJson(t: ToolDefinition): Record<string, unknown> {
  return {
    type: 'function',
    function: { name: t.name, description: t.description, parameters: t.inputSchema },
  }
}

/** Qwen 2.5's tools section of the system turn. */
export function qwenToolsText(tools: readonly ToolDefinition[]): string {
  return `# Tools\n\nYou may call one or more functions to assist with the user query.\n\nYou are provided with function signatures within <tools></tools> XML tags:\n<tools>${tools.map((t) => `\n${pyJson(toolJson(t))}`).join('')}\n</tools>\n\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>`
}

function renderQwen(messages: readonly TemplateMessage[], o: NativeRenderInput): string {
  let out = ''
  const system = o.system === '' ? DEFAULT_QWEN_SYSTEM : o.system
  if (o.tools.length > 0)
    out += `<|im_start|>system\n${system}\n\n${qwenToolsText(o.tools)}<|im_end|>\n`
  else out += `<|im_start|>system\n${system}<|im_end|>\n`
  messages.forEach((m, i) => {
    if (m.role === 'tool') {
      if (messages[i - 1]?.role !== 'tool') out += '<|im_start|>user'
      out += `\n<tool_response>\n${m.content}\n</tool_response>`
      if (messages[i + 1]?.role !== 'tool') out += '<|im_end|>\n'
    } else if (m.role === 'assistant' && m.calls) {
      out += `<|im_start|>assistant${m.content ? `\n${m.content}` : ''}`
      for (const c of m.calls) {
        out += `\n<tool_call>\n{"name": "${c.name}", "arguments": ${pyJson(c.input)}}\n</tool_call>`
      }
      out += '<|im_end|>\n'
    } else out += `<|im_start|>${m.role}\n${m.content}<|im_end|>\n`
  })
  return out
}

function renderLlama(messages: readonly TemplateMessage[], o: NativeRenderInput): string {
  const tools = o.tools.length > 0
  let out = `${o.bos ? '<|begin_of_text|>' : ''}<|start_header_id|>system<|end_header_id|>\n\n`
  if (tools) out += 'Environment: ipython\n'
  out += `Cutting Knowledge Date: December 2023\nToday Date: ${o.dateString}\n\n${o.system.trim()}<|eot_id|>`
  let rest = messages
  if (tools) {
    const first = messages[0]
    if (first === undefined) {
      throw new UnsupportedContentError(
        "Llama 3.1's native tool format puts the tools in the first user message, and there is none",
      )
    }
    rest = messages.slice(1)
    out += '<|start_header_id|>user<|end_header_id|>\n\n'
    out +=
      'Given the following functions, please respond with a JSON for a function call with its proper arguments that best answers the given prompt.\n\n'
    out +=
      'Respond in the format {"name": function name, "parameters": dictionary of argument name and its value}.Do not use variables.\n\n'
    for (const t of o.tools) out += `${pyJson(toolJson(t), 4)}\n\n`
    out += `${first.content.trim()}<|eot_id|>`
  }
  for (const m of rest) {
    if (m.role === 'tool')
      out += `<|start_header_id|>ipython<|end_header_id|>\n\n${pyJson(m.content)}<|eot_id|>`
    else if (m.role === 'assistant' && m.calls) {
      if (m.calls.length > 1) {
        o.warnings.push({
          code: 'native_parallel_calls_split',
          message: `Llama 3.1's template takes one tool call per message: ${m.calls.length} calls are written as ${m.calls.length} assistant turns`,
        })
      }
      for (const c of m.calls) {
        out += `<|start_header_id|>assistant<|end_header_id|>\n\n{"name": "${c.name}", "parameters": ${pyJson(c.input)}}<|eot_id|>`
      }
    } else out += `<|start_header_id|>${m.role}<|end_header_id|>\n\n${m.content.trim()}<|eot_id|>`
  }
  return out
}

const ALNUM = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'

/**
 * A call id as Mistral's template requires it: 9 alphanumeric characters. An id that already is
 * one is kept; any other is mapped to one by a stable hash (the call and its result agree).
 */
export function mistralCallId(id: string): string {
  if (/^[A-Za-z0-9]{9}$/.test(id)) return id
  let h1 = 0x811c9dc5
  let h2 = 0x01000193
  for (let i = 0; i < id.length; i++) {
    const c = id.charCodeAt(i)
    h1 = Math.imul(h1 ^ c, 0x01000193) >>> 0
    h2 = Math.imul(h2 ^ c, 0x5bd1e995) >>> 0
  }
  let out = ''
  for (let i = 0; i < 9; i++) {
    const n = i % 2 === 0 ? h1 : h2
    out += ALNUM[(n >>> ((i * 3) % 27)) % ALNUM.length]
  }
  return out
}

function mistralTools(tools: readonly ToolDefinition[]): string {
  const one = (t: ToolDefinition): string => {
    const fields: Array<[string, unknown]> = [
      ['name', t.name],
      ['description', t.description],
      ['parameters', t.inputSchema],
    ]
    const body = fields
      .map(([k, v]) => (typeof v === 'string' ? `"${k}": "${v}"` : `"${k}": ${pyJson(v)}`))
      .join(', ')
    return `{"type": "function", "function": {${body}}}`
  }
  return `[AVAILABLE_TOOLS] [${tools.map(one).join(', ')}][/AVAILABLE_TOOLS]`
}

/** Mistral's template refuses turns that do not alternate user/assistant (tool turns aside). */
function checkAlternation(messages: readonly TemplateMessage[]): void {
  let n = 0
  for (const m of messages) {
    if (m.role === 'tool' || m.calls) continue
    if ((m.role === 'user') !== (n % 2 === 0)) {
      throw new UnsupportedContentError(
        "Mistral's chat template refuses this conversation: after the system message, roles must alternate user/assistant/user/…, starting with the user",
      )
    }
    n++
  }
}

function renderMistral(messages: readonly TemplateMessage[], o: NativeRenderInput): string {
  checkAlternation(messages)
  let lastUser = -1
  messages.forEach((m, i) => {
    if (m.role === 'user') lastUser = i
  })
  let out = o.bos ? '<s>' : ''
  messages.forEach((m, i) => {
    if (m.role === 'user') {
      if (o.tools.length > 0 && i === lastUser) out += mistralTools(o.tools)
      const last = i === messages.length - 1
      out +=
        last && o.system !== ''
          ? `[INST] ${o.system}\n\n${m.content}[/INST]`
          : `[INST] ${m.content}[/INST]`
    } else if (m.role === 'assistant' && m.calls) {
      const calls = m.calls.map(
        (c) =>
          `${pyJson({ name: c.name, arguments: c.input }).slice(0, -1)}, "id": "${mistralCallId(c.id)}"}`,
      )
      out += `[TOOL_CALLS] [${calls.join(', ')}]</s>`
    } else if (m.role === 'assistant') out += ` ${m.content.trim()}</s>`
    else if (m.role === 'tool') {
      out += `[TOOL_RESULTS] {"content": ${m.content}, "call_id": "${mistralCallId(m.callId)}"}[/TOOL_RESULTS]`
    }
  })
  return out
}

/** The tool definitions as `family` writes them into the prompt. */
export function nativeToolDefinitions(
  family: NativeToolFamily,
  tools: readonly ToolDefinition[],
): string {
  if (family === 'qwen') return qwenToolsText(tools)
  if (family === 'mistral') return mistralTools(tools)
  return tools.map((t) => pyJson(toolJson(t), 4)).join('\n\n')
}

/**
 * The conversation in `family`'s native format, up to (not including) the generation prompt,
 * string for string what the family's published chat template renders for the same messages and
 * tools (see the module doc).
 */
export function renderNative(
  family: NativeToolFamily,
  messages: readonly TemplateMessage[],
  input: NativeRenderInput,
): string {
  if (family === 'qwen') return renderQwen(messages, input)
  if (family === 'llama3') return renderLlama(messages, input)
  return renderMistral(messages, input)
}

/** The text that opens the model's turn after the conversation (Mistral continues after `[/INST]`). */
export const NATIVE_GENERATION_PROMPT: Readonly<Record<NativeToolFamily, string>> = Object.freeze({
  qwen: '<|im_start|>assistant\n',
  llama3: '<|start_header_id|>assistant<|end_header_id|>\n\n',
  mistral: '',
})
