import {
  ConfigurationError,
  type Message,
  MessageSchema,
  parseWith,
  type ToolCallBlock,
  type ToolDefinition,
  type ToolResultBlock,
} from '@contextkit/core'
import { applyCacheMarkers } from './cache-markers.js'
import { PrefillUnsupportedError } from './errors.js'
import {
  checkMediaPolicy,
  toImageBlock,
  type UnsupportedMediaPolicy,
  unsupported,
} from './media.js'
import { checkParticipantName, mergeStops, participantStops, speakerOf } from './participants.js'
import { buildSystem } from './system-prompt.js'
import type {
  BuildOptions,
  FormattedBlock,
  FormattedMessage,
  FormattedRequest,
  FormatWarning,
  ParserOptions,
  PrefillFormatter,
  StreamParser,
} from './types.js'
import { withUserSections } from './user-sections.js'
import { parseBuildOptions, parseToolResults, rejectsPrefill } from './validate.js'
import { IncrementalXmlParser } from './xml-stream-parser.js'
import {
  parseXmlToolCalls,
  renderXmlToolCalls,
  renderXmlToolDefinitions,
  renderXmlToolResults,
} from './xml-tools.js'

/** Options of {@link AnthropicXmlFormatter}. */
export interface AnthropicXmlFormatterOptions {
  /** `'xml'`: tools described in the system prompt and called in XML; `'native'`: the API's tools. Default `'xml'`. */
  toolMode?: 'xml' | 'native'
  /** Images inside tool results (XML cannot carry them): `'error'` throws, `'strip'` drops with a warning. Default `'error'`. */
  unsupportedMedia?: UnsupportedMediaPolicy
  /** At most this many participant stop sequences. Default `10`. */
  maxParticipantsForStop?: number
  /** Text between transcript messages. Default `'\n\n'`. */
  messageSeparator?: string
  /** The user turn that opens the request (the API wants one before the transcript). Default `'[Transcript start]'`. */
  openingText?: string
  /** Namespace prefixes the parser treats like plain tags. Default `['antml']`. */
  namespaces?: readonly string[]
}

const TOOL_PREAMBLE =
  'You can call the functions below. To call them, write a <function_calls> block containing one <invoke name="..."> per call, with one <parameter name="...">value</parameter> per argument, then stop; the results come back in a <function_results> block.'

/**
 * The whole conversation as a multi-participant transcript (`Name: text`) inside a prefilled
 * assistant turn that ends with `{assistant}:`. See the README for the exact layout.
 */
export class AnthropicXmlFormatter implements PrefillFormatter {
  readonly name = 'anthropic-xml'
  readonly usesPrefill = true
  readonly toolMode: 'xml' | 'native'
  readonly #media: UnsupportedMediaPolicy
  readonly #maxStops: number
  readonly #sep: string
  readonly #opening: string
  readonly #namespaces: readonly string[]

  constructor(options: AnthropicXmlFormatterOptions = {}) {
    this.toolMode = options.toolMode ?? 'xml'
    this.#media = options.unsupportedMedia ?? 'error'
    this.#maxStops = options.maxParticipantsForStop ?? 10
    this.#sep = options.messageSeparator ?? '\n\n'
    this.#opening = options.openingText ?? '[Transcript start]'
    this.#namespaces = options.namespaces ?? ['antml']
    if (this.toolMode !== 'xml' && this.toolMode !== 'native')
      throw new ConfigurationError(
        `toolMode must be 'xml' or 'native', got ${String(this.toolMode)}`,
      )
    if (!Number.isInteger(this.#maxStops) || this.#maxStops < 0)
      throw new ConfigurationError('maxParticipantsForStop must be a non-negative integer')
    if (typeof this.#opening !== 'string' || this.#opening.trim() === '')
      throw new ConfigurationError('openingText must be a non-blank string')
    if (typeof this.#sep !== 'string')
      throw new ConfigurationError('messageSeparator must be a string')
    checkMediaPolicy(this.#media)
  }

  formatToolDefinitions(tools: readonly ToolDefinition[]): string | undefined {
    if (this.toolMode === 'native' || tools.length === 0) return undefined
    return `${TOOL_PREAMBLE}\n\n${renderXmlToolDefinitions(tools)}`
  }

  /**
   * Results as a `<function_results>` block. Images follow `unsupportedMedia`: `'error'` throws
   * `UnsupportedContentError`, `'strip'` writes `[image omitted]`.
   */
  formatToolResults(results: readonly ToolResultBlock[]): string {
    return renderXmlToolResults(parseToolResults(results).map((r) => this.#textOnly(r, -1, [])))
  }

  createStreamParser(options: ParserOptions = {}): StreamParser {
    return new IncrementalXmlParser({ ...options, namespaces: this.#namespaces })
  }

  parseToolCalls(text: string, options: ParserOptions = {}): ToolCallBlock[] {
    return parseXmlToolCalls(text, { ...options, namespaces: this.#namespaces })
  }

  hasToolUse(text: string, options: ParserOptions = {}): boolean {
    return this.parseToolCalls(text, options).length > 0
  }

  buildMessages(input: readonly Message[], buildOptions?: BuildOptions): FormattedRequest {
    const options = parseBuildOptions(buildOptions)
    const messages = withUserSections(
      parseWith(MessageSchema.array(), input, 'messages'),
      options.userSections,
    )
    if (rejectsPrefill(options.model)) {
      throw new PrefillUnsupportedError(
        `AnthropicXmlFormatter ends every request with an assistant turn, which ${options.model.id} rejects; use NativeFormatter for this model`,
        { details: { model: options.model.id } },
      )
    }
    const assistant = checkParticipantName(options.assistantName ?? 'Assistant', 'assistantName')
    const user = checkParticipantName(options.userName ?? 'User', 'userName')
    const tools = options.tools ?? []
    const xmlTools = this.toolMode === 'xml' && tools.length > 0
    const warnings: FormatWarning[] = []
    const system = buildSystem(options.system, this.formatToolDefinitions(tools))
    const marks: FormattedBlock[] = system.cacheAfter ? [system.cacheAfter] : []
    const w = new TranscriptWriter()
    w.text('user', this.#opening)
    w.seal()
    const speakers: string[] = []
    let turnText = ''
    let lastSpeaker: string | undefined
    let lastContinued = false
    messages.forEach((message, index) => {
      const speaker = checkParticipantName(
        speakerOf(message, assistant, user),
        `message ${index} participant`,
      )
      const resultsOnly =
        message.content.length > 0 && message.content.every((b) => b.type === 'tool_result')
      // tool results continue the turn they answer, without a new name
      const continuing = resultsOnly && index > 0
      lastContinued = continuing
      let pending = ''
      if (!continuing) {
        speakers.push(speaker)
        pending = `${index > 0 ? this.#sep : ''}${speaker}:`
        lastSpeaker = speaker
        turnText = ''
      }
      let prevInline: 'text' | 'xml' | undefined = continuing ? 'xml' : undefined
      const emitInline = (piece: string, kind: 'text' | 'xml'): void => {
        const joiner =
          prevInline === undefined ? ' ' : prevInline === 'text' && kind === 'text' ? '' : '\n'
        pending += joiner + piece
        turnText += joiner + piece
        prevInline = kind
      }
      const flush = (): void => {
        w.text('assistant', pending)
        pending = ''
      }
      const interrupt = (role: 'user' | 'assistant', block: FormattedBlock): void => {
        flush()
        w.block(role, block)
        if (role === 'user') turnText = ''
        prevInline = 'xml'
      }
      let i = 0
      const blocks = message.content
      while (i < blocks.length) {
        const block = blocks[i]!
        if (block.type === 'text') {
          if (block.text !== '') emitInline(block.text, 'text')
          i++
        } else if (block.type === 'thinking') {
          emitInline(`<thinking>${block.thinking}</thinking>`, 'xml')
          i++
        } else if (block.type === 'image') {
          interrupt('user', toImageBlock(block))
          i++
        } else if (this.toolMode === 'xml') {
          const kind = block.type
          let j = i
          while (j < blocks.length && blocks[j]!.type === kind) j++
          const group = blocks.slice(i, j)
          if (kind === 'tool_call') {
            emitInline(renderXmlToolCalls(group as ToolCallBlock[]), 'xml')
          } else {
            const results = (group as ToolResultBlock[]).map((r) =>
              this.#textOnly(r, index, warnings),
            )
            emitInline(renderXmlToolResults(results), 'xml')
          }
          i = j
        } else if (block.type === 'tool_call') {
          interrupt('assistant', {
            type: 'tool_use',
            id: block.id,
            name: block.name,
            input: block.input,
          })
          i++
        } else {
          interrupt('user', {
            type: 'tool_result',
            tool_use_id: block.toolCallId,
            content: block.content.map((c) =>
              c.type === 'text' ? { type: 'text', text: c.text } : toImageBlock(c),
            ),
            ...(block.isError ? { is_error: true } : {}),
          })
          i++
        }
      }
      flush()
      if (message.cacheBreakpoint) {
        const last = w.lastBlock()
        if (last) marks.push(last)
        w.seal()
      }
    })
    const last = messages[messages.length - 1]
    const continues =
      last !== undefined &&
      lastSpeaker === assistant &&
      (last.role === 'assistant' || lastContinued)
    let tail = ''
    if (continues) {
      const empty = turnText.trim() === ''
      if (empty && options.thinking) tail += ' <thinking>'
      if (options.prefill) tail += (empty ? ' ' : '') + options.prefill
    } else {
      w.text('assistant', `${messages.length > 0 ? this.#sep : ''}${assistant}:`)
      turnText = ''
      if (options.thinking) tail += ' <thinking>'
      if (options.prefill) tail += ` ${options.prefill}`
    }
    w.text('assistant', tail)
    turnText += tail
    w.trimEnd()
    const finalRole = w.messages()[w.messages().length - 1]?.role
    const prefillText = turnText.trimEnd()
    const assistantPrefill =
      finalRole === 'assistant' && prefillText !== '' ? prefillText : undefined
    const stops = participantStops(speakers, assistant, user, this.#maxStops)
    if (xmlTools) stops.push('</function_calls>')
    const request: FormattedRequest = {
      messages: w.messages(),
      system: system.blocks,
      stopSequences: mergeStops(stops, options.stopSequences),
      cacheMarkersApplied: applyCacheMarkers(marks),
      warnings,
    }
    if (assistantPrefill !== undefined) request.assistantPrefill = assistantPrefill
    if (this.toolMode === 'native' && tools.length > 0) {
      request.nativeTools = tools.map((t) => ({
        name: t.name,
        description: t.description,
        input_schema: t.inputSchema,
      }))
    }
    return request
  }

  #textOnly(result: ToolResultBlock, index: number, warnings: FormatWarning[]): ToolResultBlock {
    if (result.content.every((c) => c.type === 'text')) return result
    return {
      ...result,
      content: result.content.flatMap((c) => {
        if (c.type === 'text') return [c]
        unsupported(this.#media, c, this.name, index, warnings)
        return [{ type: 'text' as const, text: '[image omitted]' }]
      }),
    }
  }
}

/**
 * Accumulates role segments; text is appended to the last unsealed text block of that role.
 * A text block is only opened by non-whitespace text (the API rejects whitespace-only text
 * blocks): whitespace that would open one is held and written in front of the next text of the
 * same role, or dropped when a non-text block or the other role comes first.
 */
class TranscriptWriter {
  readonly #messages: FormattedMessage[] = []
  #sealed = true
  #heldSpace = ''
  #heldRole: 'user' | 'assistant' = 'assistant'

  text(role: 'user' | 'assistant', text: string): void {
    if (text === '') return
    const msg = this.#messages[this.#messages.length - 1]
    const lastBlock = msg?.content[msg.content.length - 1]
    if (msg && msg.role === role && lastBlock?.type === 'text' && !this.#sealed) {
      lastBlock.text += text
      return
    }
    if (this.#heldRole !== role) this.#heldSpace = ''
    if (text.trim() === '') {
      this.#heldSpace += text
      this.#heldRole = role
      return
    }
    const held = this.#heldSpace
    this.block(role, { type: 'text', text: held + text })
    this.#sealed = false
  }

  block(role: 'user' | 'assistant', block: FormattedBlock): void {
    this.#heldSpace = ''
    const msg = this.#messages[this.#messages.length - 1]
    if (msg && msg.role === role) msg.content.push(block)
    else this.#messages.push({ role, content: [block] })
    this.#sealed = true
  }

  /** The next text starts a new block (the current one carries a cache marker). */
  seal(): void {
    this.#sealed = true
  }

  lastBlock(): FormattedBlock | undefined {
    const msg = this.#messages[this.#messages.length - 1]
    return msg?.content[msg.content.length - 1]
  }

  /** The request's final assistant content must not end in whitespace. */
  trimEnd(): void {
    const msg = this.#messages[this.#messages.length - 1]
    if (msg?.role !== 'assistant') return
    while (msg.content.length > 0) {
      const b = msg.content[msg.content.length - 1]!
      if (b.type !== 'text') return
      b.text = b.text.trimEnd()
      if (b.text !== '') return
      msg.content.pop()
    }
    if (msg.content.length === 0) this.#messages.pop()
  }

  messages(): FormattedMessage[] {
    return this.#messages
  }
}
