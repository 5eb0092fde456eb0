import {
  assertObject,
  ConfigurationError,
  type Message,
  type ToolCallBlock,
  type ToolDefinition,
  type ToolResultBlock,
  textMessage,
} from '@contextkit/core'
import { escapeBlockText } from './block-text.js'
import { CHAT_TEMPLATES, type ChatTemplate, type ChatTemplatePreset } from './chat-templates.js'
import { type ChatMLParserOptions, ChatMLStreamParser } from './chatml-parser.js'
import { UnsupportedContentError } from './errors.js'
import { stringifyJson } from './lossless-json.js'
import { checkFlag, checkMediaPolicy, type UnsupportedMediaPolicy, unsupported } from './media.js'
import { buildNativeRequest } from './native-build.js'
import {
  NATIVE_CALL_SYNTAX,
  type NativeToolFamily,
  nativeToolDefinitions,
  nativeToolFamily,
} from './native-tool-formats.js'
import { NativeToolStreamParser } from './native-tool-parser.js'
import { checkOptions } from './option-keys.js'
import { checkParticipantName, mergeStops } from './participants.js'
import { resolveTemplate } from './resolve-template.js'
import { guardSpecialTokens, type SpecialTokenPolicy } from './special-tokens.js'
import { systemText } from './system-prompt.js'
import type {
  BuildOptions,
  FormattedRequest,
  Formatter,
  FormatWarning,
  ParserOptions,
  StreamParser,
} from './types.js'
import { withUserSections } from './user-sections.js'
import { checkInputDepth, parseBuildOptions, parseMessages, parseToolResults } from './validate.js'
import { XmlStreamParser } from './xml-stream-parser.js'
import {
  parseXmlToolCalls,
  renderXmlToolCalls,
  renderXmlToolDefinitions,
  renderXmlToolResults,
  XML_TOOL_PREAMBLE,
} from './xml-tools.js'

/** Options of {@link ChatMLFormatter}. */
export interface ChatMLFormatterOptions {
  /** The model family's chat template (see `CHAT_TEMPLATES`). Default `'chatml'`. */
  preset?: ChatTemplatePreset
  /** A whole template of your own, used instead of `preset`. Default: none. */
  template?: ChatTemplate
  /** Overrides the opening of system turns (e.g. `'<|system|>\n'`). Default: the template's. */
  systemToken?: string
  /** Overrides the opening of user turns (e.g. `'<|user|>\n'`). Default: the template's. */
  userToken?: string
  /** Overrides the opening of assistant turns (e.g. `'<|assistant|>\n'`). Default: the template's. */
  assistantToken?: string
  /** Overrides the end of every turn (e.g. `'<|end|>\n'`); its trimmed text becomes a stop sequence. Default: the template's. */
  endToken?: string
  /**
   * `'json'`: Qwen/Hermes conventions (`<tool_call>{json}</tool_call>`, `<tool_response>`) in every
   * preset's turns; `'xml'`: the Anthropic XML conventions (`<function_calls>`,
   * `<function_results>`); `'native'`: the family's own tool format, string for string as its
   * published chat template writes it — Qwen 2.5 for `chatml`, Llama 3.1 (`ipython` turns, bare
   * JSON calls) for `llama3`, Mistral v0.3 (`[AVAILABLE_TOOLS]`, `[TOOL_CALLS]`, `[TOOL_RESULTS]`)
   * for `mistral`; Gemma has none (a `ConfigurationError`). Default `'json'`.
   */
  toolFormat?: 'json' | 'xml' | 'native'
  /** Llama 3.1's `date_string` (`toolFormat: 'native'`). Default `'26 Jul 2024'`, the template's own. */
  dateString?: string
  /** Write the template's begin-of-text token; turn off when your server adds it itself. Default `true`. */
  bos?: boolean
  /** Text containing a special token: `'reject'` throws `SpecialTokenError`, `'escape'` breaks it with U+200B. Default `'reject'`. */
  specialTokens?: SpecialTokenPolicy
  /** Special tokens guarded besides the template's own. Default `[]`. */
  extraSpecialTokens?: readonly string[]
  /** Images (a text prompt has no place for them): `'error'` throws, `'strip'` drops them. Default `'error'`. */
  unsupportedMedia?: UnsupportedMediaPolicy
  /** Record an `image_stripped` warning on the request for each image `'strip'` drops. Default `true`. */
  warnOnStrip?: boolean
}

/** The ChatML special tokens always guarded by the `chatml` preset. */
export const CHATML_SPECIAL_TOKENS: readonly string[] = CHAT_TEMPLATES.chatml.specialTokens

/** A JSON object as one line with `<` written `\u003c`, so it can never close a tag. */
function safeJson(value: unknown): string {
  return stringifyJson(value).replaceAll('<', '\\u003c')
}

/** Render one call in the Qwen convention. */
export function renderQwenToolCall(call: Pick<ToolCallBlock, 'name' | 'input'>): string {
  assertObject(call, 'renderQwenToolCall', 'call')
  checkInputDepth(call.input, 'renderQwenToolCall call', 'input')
  return `<tool_call>\n${safeJson({ name: call.name, arguments: call.input })}\n</tool_call>`
}

/**
 * Chat-template prompts for local and open models, rendered to one prompt string for a
 * completions endpoint: ChatML (Qwen) by default, or the Llama 3, Mistral and Gemma templates
 * by `preset`, or your own tokens. Tool calls, thinking and results follow `toolFormat`.
 */
export class ChatMLFormatter implements Formatter {
  /** {@inheritDoc Formatter.name} */
  readonly name = 'chatml'
  /** {@inheritDoc Formatter.usesPrefill} */
  readonly usesPrefill = true
  /** The template this formatter writes (the preset with any token overrides applied). */
  readonly template: ChatTemplate
  /** {@inheritDoc ChatMLFormatterOptions.toolFormat} */
  readonly toolFormat: 'json' | 'xml' | 'native'
  /** The family whose native tool format is written (`toolFormat: 'native'`). */
  readonly nativeFamily: NativeToolFamily | undefined
  readonly #dateString: string
  readonly #policy: SpecialTokenPolicy
  readonly #tokens: readonly string[]
  readonly #media: UnsupportedMediaPolicy
  readonly #warnOnStrip: boolean
  readonly #bos: boolean

  constructor(options: ChatMLFormatterOptions = {}) {
    checkOptions(options, 'new ChatMLFormatter')
    this.template = resolveTemplate(options)
    this.toolFormat = options.toolFormat ?? 'json'
    this.#policy = options.specialTokens ?? 'reject'
    this.#media = options.unsupportedMedia ?? 'error'
    this.#warnOnStrip = options.warnOnStrip ?? true
    this.#bos = options.bos ?? true
    const extra = options.extraSpecialTokens ?? []
    if (!Array.isArray(extra) || !extra.every((t) => typeof t === 'string'))
      throw new ConfigurationError('extraSpecialTokens must be an array of strings')
    this.#tokens = [...this.template.specialTokens, ...extra]
    if (this.toolFormat !== 'json' && this.toolFormat !== 'xml' && this.toolFormat !== 'native')
      throw new ConfigurationError(`toolFormat must be 'json', 'xml' or 'native'`)
    if (this.toolFormat === 'native' && options.template !== undefined)
      throw new ConfigurationError(`toolFormat 'native' needs a preset, not a template of your own`)
    this.nativeFamily =
      this.toolFormat === 'native' ? nativeToolFamily(options.preset ?? 'chatml') : undefined
    this.#dateString = options.dateString ?? '26 Jul 2024'
    if (typeof this.#dateString !== 'string')
      throw new ConfigurationError('dateString must be a string')
    if (this.#policy !== 'reject' && this.#policy !== 'escape')
      throw new ConfigurationError(`specialTokens must be 'reject' or 'escape'`)
    checkMediaPolicy(this.#media)
    checkFlag(options.warnOnStrip, 'warnOnStrip')
    checkFlag(options.bos, 'bos')
  }

  /** {@inheritDoc Formatter.formatToolDefinitions} */
  formatToolDefinitions(tools: readonly ToolDefinition[]): string | undefined {
    if (tools.length === 0) return undefined
    if (this.nativeFamily) return nativeToolDefinitions(this.nativeFamily, tools)
    if (this.toolFormat === 'xml')
      return `${XML_TOOL_PREAMBLE}\n\n${renderXmlToolDefinitions(tools)}`
    const lines = tools.map((t) =>
      safeJson({
        type: 'function',
        function: { name: t.name, description: t.description, parameters: t.inputSchema },
      }),
    )
    return `# Tools\n\nYou may call one or more of these functions:\n<tools>\n${lines.join('\n')}\n</tools>\n\nFor each call, write a JSON object with the function name and arguments inside <tool_call></tool_call> tags:\n<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>`
  }

  /**
   * Results as `<tool_response>` blocks (an error result's text starts with `Error: `), or as a
   * `<function_results>` block with `toolFormat: 'xml'`. Special tokens follow `specialTokens`;
   * images follow `unsupportedMedia` (`'strip'` writes `[image omitted]`).
   */
  formatToolResults(results: readonly ToolResultBlock[]): string {
    return this.#toolResults(parseToolResults(results), undefined, [])
  }

  /** `index`: the message holding the results; `undefined` for `formatToolResults`' argument. */
  #toolResults(
    results: readonly ToolResultBlock[],
    index: number | undefined,
    warnings: FormatWarning[],
  ): string {
    const where = index === undefined ? 'tool results' : `message ${index}`
    const texts = results.map((r, i) => {
      const at = index ?? { result: i, toolCallId: r.toolCallId }
      const text = r.content
        .map((c) => {
          if (c.type === 'text') return c.text
          unsupported(this.#media, c, this.name, at, warnings, this.#warnOnStrip)
          return '[image omitted]'
        })
        .join('\n')
      return guardSpecialTokens(text, this.#tokens, this.#policy, where)
    })
    if (this.toolFormat === 'xml') {
      return renderXmlToolResults(
        results.map((r, i) => ({ ...r, content: [{ type: 'text', text: texts[i] ?? '' }] })),
      )
    }
    return results
      .map((r, i) => {
        const body = escapeBlockText(texts[i] ?? '', ['</tool_response'])
        return `<tool_response>\n${r.isError ? `Error: ${body}` : body}\n</tool_response>`
      })
      .join('\n')
  }

  /** {@inheritDoc Formatter.createStreamParser} */
  createStreamParser(options: ChatMLParserOptions = {}): StreamParser {
    checkOptions(options, 'new ChatMLStreamParser', 'createStreamParser')
    if (this.nativeFamily === 'llama3' || this.nativeFamily === 'mistral')
      return new NativeToolStreamParser(NATIVE_CALL_SYNTAX[this.nativeFamily], options)
    if (this.toolFormat === 'xml')
      return new XmlStreamParser({
        ...options,
        namespaces: [],
        thinkingTag: 'think',
        trimThinkingNewlines: true,
      })
    return new ChatMLStreamParser(options)
  }

  /** {@inheritDoc Formatter.parseToolCalls} */
  parseToolCalls(text: string, options: ParserOptions = {}): ToolCallBlock[] {
    checkOptions(options, 'parser', 'parseToolCalls')
    if (this.toolFormat === 'xml') return parseXmlToolCalls(text, { ...options, namespaces: [] })
    const parser = this.createStreamParser(options)
    const calls: ToolCallBlock[] = []
    for (const e of [...parser.processChunk(text), ...parser.flush()]) {
      if (e.type === 'tool-call-end') calls.push(e.call)
    }
    return calls
  }

  /** {@inheritDoc Formatter.hasToolUse} */
  hasToolUse(text: string, options: ParserOptions = {}): boolean {
    return this.parseToolCalls(text, options).length > 0
  }

  /** {@inheritDoc Formatter.buildMessages} */
  buildMessages(input: readonly Message[], buildOptions?: BuildOptions): FormattedRequest {
    if (this.nativeFamily) {
      return buildNativeRequest(input, buildOptions, {
        family: this.nativeFamily,
        guard: (text, where) => guardSpecialTokens(text, this.#tokens, this.#policy, where),
        media: this.#media,
        warnOnStrip: this.#warnOnStrip,
        bos: this.#bos,
        dateString: this.#dateString,
      })
    }
    const options = parseBuildOptions(buildOptions)
    const conversation = withUserSections(parseMessages(input), options.userSections)
    const t = this.template
    const warnings: FormatWarning[] = []
    const guard = (text: string, where: string): string =>
      guardSpecialTokens(text, this.#tokens, this.#policy, where)
    const prefix = options.contextPrefix
    const messages =
      prefix === undefined || prefix === ''
        ? conversation
        : [
            ...(typeof prefix === 'string' ? [textMessage('user', prefix)] : prefix),
            ...conversation,
          ]
    const turns = messages.map((m, i) => ({
      role: m.role,
      content: this.#content(m, i, guard, warnings),
    }))
    if (t.alternate && turns[0]?.role === 'assistant') {
      // the family's template raises on it: a conversation must start with the user
      throw new UnsupportedContentError(
        'this chat template (Mistral, Gemma) refuses a conversation that starts with the assistant: roles must alternate user/assistant/…, starting with the user',
      )
    }
    if (t.alternate) {
      for (let i = turns.length - 1; i > 0; i--) {
        const [prev, cur] = [turns[i - 1]!, turns[i]!]
        if (prev.role !== cur.role) continue
        prev.content = prev.content === '' ? cur.content : `${prev.content}\n\n${cur.content}`
        turns.splice(i, 1)
      }
    }
    const tools = options.tools ?? []
    const sys = systemText(options.system, this.formatToolDefinitions(tools))
    let prompt = this.#bos ? t.begin : ''
    let firstPrefix = ''
    if (sys !== '') {
      const text = guard(sys, 'system')
      if (t.system) prompt += t.system.open + (t.trim ? text.trim() : text) + t.system.close
      else firstPrefix = `${text}\n\n`
    }
    if (firstPrefix !== '' && turns.length === 0) turns.push({ role: 'user', content: '' })
    const last = turns[turns.length - 1]
    // a final assistant turn is continued (an empty one is the open turn itself)
    const continues = last?.role === 'assistant'
    let turn = ''
    turns.forEach((m, i) => {
      const tokens = m.role === 'user' ? t.user : t.assistant
      const body = (i === 0 ? firstPrefix : '') + (t.trim ? m.content.trim() : m.content)
      if (continues && i === turns.length - 1) {
        prompt += tokens.open
        turn = body.trim() === '' ? '' : body.trimEnd()
      } else prompt += tokens.open + body + tokens.close
    })
    if (!continues) prompt += t.assistant.open
    const prefill = guard((options.prefill ?? '').trimEnd(), 'prefill')
    if (turn !== '') {
      if (options.thinking) {
        warnings.push({
          code: 'thinking_not_opened',
          message:
            'thinking was requested, but the final assistant message is continued; no thinking block is opened mid-answer',
          details: { formatter: this.name },
        })
      }
      // a prefill after a partial answer starts a new paragraph, unless it brings its own whitespace
      if (prefill !== '') turn += /^\s/.test(prefill) ? prefill : `\n\n${prefill}`
    } else turn = (options.thinking ? '<think>\n' : '') + prefill
    prompt += turn
    const stops = [...t.stopSequences]
    if (this.toolFormat === 'xml' && tools.length > 0) stops.push('</function_calls>')
    const request: FormattedRequest = {
      messages: [],
      system: [],
      prompt,
      stopSequences: mergeStops(stops, options.stopSequences),
      cacheMarkersApplied: 0,
      warnings,
    }
    if (turn !== '') request.assistantPrefill = turn
    return request
  }

  /** One message's content: text joined as is, tags on lines of their own. */
  #content(
    message: Message,
    index: number,
    guard: (text: string, where: string) => string,
    warnings: FormatWarning[],
  ): string {
    const where = `message ${index}`
    const pieces: Array<{ text: string; kind: 'text' | 'tag' }> = []
    const blocks = message.content
    let i = 0
    while (i < blocks.length) {
      const block = blocks[i]!
      let j = i + 1
      switch (block.type) {
        case 'text':
          if (block.text !== '') pieces.push({ text: guard(block.text, where), kind: 'text' })
          break
        case 'thinking':
          pieces.push({
            text: `<think>\n${escapeBlockText(guard(block.thinking, where), ['</think'])}\n</think>`,
            kind: 'tag',
          })
          break
        case 'tool_call':
          if (this.toolFormat === 'json') {
            pieces.push({ text: guard(renderQwenToolCall(block), where), kind: 'tag' })
            break
          }
          while (j < blocks.length && blocks[j]!.type === 'tool_call') j++
          pieces.push({
            text: guard(renderXmlToolCalls(blocks.slice(i, j) as ToolCallBlock[]), where),
            kind: 'tag',
          })
          break
        case 'tool_result':
          if (this.toolFormat === 'xml')
            while (j < blocks.length && blocks[j]!.type === 'tool_result') j++
          pieces.push({
            text: this.#toolResults(blocks.slice(i, j) as ToolResultBlock[], index, warnings),
            kind: 'tag',
          })
          break
        case 'image':
          unsupported(this.#media, block, this.name, index, warnings, this.#warnOnStrip)
          break
      }
      i = j
    }
    let content = ''
    pieces.forEach((p, k) => {
      const prev = pieces[k - 1]
      content += prev === undefined || (prev.kind === 'text' && p.kind === 'text') ? '' : '\n'
      content += p.text
    })
    if (message.role === 'user' && message.participant !== undefined) {
      const name = checkParticipantName(message.participant, `${where} participant`)
      content = `${guard(name, `${where} participant`)}: ${content}`
    }
    return content
  }
}
