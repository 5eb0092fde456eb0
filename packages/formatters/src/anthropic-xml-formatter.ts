import {
  assertOptions,
  ConfigurationError,
  type Message,
  type ToolCallBlock,
  type ToolDefinition,
  type ToolResultBlock,
} from '@contextkit/core'
import { escapeBlockText } from './block-text.js'
import { CacheMarks } from './cache-markers.js'
import { PrefillUnsupportedError } from './errors.js'
import {
  checkFlag,
  checkMediaPolicy,
  type ToolResultMediaPolicy,
  toImageBlock,
  unsupported,
} from './media.js'
import { checkParticipantName, mergeStops, participantStops, speakerOf } from './participants.js'
import { buildSystem } from './system-prompt.js'
import { TranscriptWriter } from './transcript-writer.js'
import type {
  BuildOptions,
  FormattedBlock,
  FormattedRequest,
  Formatter,
  FormatWarning,
  ParserOptions,
  StreamParser,
} from './types.js'
import { withUserSections } from './user-sections.js'
import { parseBuildOptions, parseMessages, parseToolResults, rejectsPrefill } from './validate.js'
import { XmlStreamParser } from './xml-stream-parser.js'
import {
  parseXmlToolCalls,
  renderXmlToolCalls,
  renderXmlToolDefinitions,
  renderXmlToolResults,
  XML_TOOL_PREAMBLE,
  xmlToolResultSegments,
} from './xml-tools.js'

/** Options of {@link AnthropicXmlFormatter}. */
export interface AnthropicXmlFormatterOptions {
  /** `'xml'`: tools described in the system prompt and called in XML; `'native'`: the API's tools. Default `'xml'`. */
  toolMode?: 'xml' | 'native'
  /**
   * Images inside XML tool results: `'split'` puts each image in a user turn of its own at its
   * place in the result (the transcript continues after it); `'strip'` writes `[image omitted]`
   * (with a warning unless `warnOnStrip: false`); `'error'` throws `UnsupportedContentError`.
   * `formatToolResults` returns one string, so there `'split'` throws like `'error'`.
   * Default `'split'`.
   */
  unsupportedMedia?: ToolResultMediaPolicy
  /** Record an `image_stripped` warning on the request for each image `'strip'` drops. Default `true`. */
  warnOnStrip?: boolean
  /** At most this many participant stop sequences. Default `10`. */
  maxParticipantsForStop?: number
  /** Text between transcript messages. Default `'\n\n'`. */
  messageSeparator?: string
  /** The user turn that opens the request (the API wants one before the transcript). Default `'[Transcript start]'`. */
  openingText?: string
  /** Namespace prefixes the parser treats like plain tags. Default `['antml']`. */
  namespaces?: readonly string[]
}

/** State of one `buildMessages` call. */
interface Build {
  w: TranscriptWriter
  marks: CacheMarks
  warnings: FormatWarning[]
  speakers: string[]
  assistant: string
  user: string
  /** Text written since the current speaker's name (what a continued turn already holds). */
  turnText: string
  lastSpeaker: string | undefined
  lastContinued: boolean
  /** Something is already in the transcript (the next speaker is preceded by the separator). */
  started: boolean
  /** Participant names already checked. */
  checked: Set<string>
}

/**
 * The whole conversation as a multi-participant transcript (`Name: text`) inside a prefilled
 * assistant turn that ends with `{assistant}:`. See the README for the exact layout.
 */
export class AnthropicXmlFormatter implements Formatter {
  /** {@inheritDoc Formatter.name} */
  readonly name = 'anthropic-xml'
  /** {@inheritDoc Formatter.usesPrefill} */
  readonly usesPrefill = true
  /** {@inheritDoc AnthropicXmlFormatterOptions.toolMode} */
  readonly toolMode: 'xml' | 'native'
  readonly #media: ToolResultMediaPolicy
  readonly #warnOnStrip: boolean
  readonly #maxStops: number
  readonly #sep: string
  readonly #opening: string
  readonly #namespaces: readonly string[]
  readonly #thinkingCloses: readonly string[]

  constructor(options: AnthropicXmlFormatterOptions = {}) {
    assertOptions(options, 'new AnthropicXmlFormatter')
    this.toolMode = options.toolMode ?? 'xml'
    this.#media = options.unsupportedMedia ?? 'split'
    this.#warnOnStrip = options.warnOnStrip ?? true
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
    if (!Array.isArray(this.#namespaces) || !this.#namespaces.every((n) => typeof n === 'string'))
      throw new ConfigurationError('namespaces must be an array of strings')
    checkMediaPolicy(this.#media, ['split', 'error', 'strip'])
    checkFlag(options.warnOnStrip, 'warnOnStrip')
    this.#thinkingCloses = ['', ...this.#namespaces].map((ns) => `</${ns ? `${ns}:` : ''}thinking`)
  }

  /** {@inheritDoc Formatter.formatToolDefinitions} */
  formatToolDefinitions(tools: readonly ToolDefinition[]): string | undefined {
    if (this.toolMode === 'native' || tools.length === 0) return undefined
    return `${XML_TOOL_PREAMBLE}\n\n${renderXmlToolDefinitions(tools)}`
  }

  /**
   * Results as a `<function_results>` block. Images follow `unsupportedMedia`: `'strip'` writes
   * `[image omitted]`; `'error'` and `'split'` throw `UnsupportedContentError` (a string has no
   * place for an image).
   */
  formatToolResults(results: readonly ToolResultBlock[]): string {
    const policy = this.#media === 'strip' ? 'strip' : 'error'
    return renderXmlToolResults(
      parseToolResults(results).map((r) => this.#textOnly(r, policy, -1, [])),
    )
  }

  /** {@inheritDoc Formatter.createStreamParser} */
  createStreamParser(options: ParserOptions = {}): StreamParser {
    return new XmlStreamParser({ ...options, namespaces: this.#namespaces })
  }

  /** {@inheritDoc Formatter.parseToolCalls} */
  parseToolCalls(text: string, options: ParserOptions = {}): ToolCallBlock[] {
    return parseXmlToolCalls(text, { ...options, namespaces: this.#namespaces })
  }

  /** {@inheritDoc Formatter.hasToolUse} */
  hasToolUse(text: string, options: ParserOptions = {}): boolean {
    return this.parseToolCalls(text, options).length > 0
  }

  /** {@inheritDoc Formatter.buildMessages} */
  buildMessages(input: readonly Message[], buildOptions?: BuildOptions): FormattedRequest {
    const options = parseBuildOptions(buildOptions)
    const messages = withUserSections(parseMessages(input), options.userSections)
    if (rejectsPrefill(options.model)) {
      throw new PrefillUnsupportedError(
        `AnthropicXmlFormatter ends every request with an assistant turn, which ${options.model.id} rejects; use NativeFormatter for this model`,
        { details: { model: options.model.id } },
      )
    }
    const tools = options.tools ?? []
    const system = buildSystem(options.system, this.formatToolDefinitions(tools))
    const b: Build = {
      w: new TranscriptWriter(),
      marks: new CacheMarks(options),
      warnings: [],
      speakers: [],
      assistant: checkParticipantName(options.assistantName ?? 'Assistant', 'assistantName'),
      user: checkParticipantName(options.userName ?? 'User', 'userName'),
      turnText: '',
      lastSpeaker: undefined,
      lastContinued: false,
      started: false,
      checked: new Set(),
    }
    b.marks.add(system.cacheAfter)
    b.w.text('user', this.#opening)
    b.w.seal()
    const prefix = options.contextPrefix
    const prefixMessages = typeof prefix === 'string' || prefix === undefined ? [] : prefix
    if (typeof prefix === 'string' && prefix !== '') {
      b.w.text('assistant', prefix)
      b.started = true
    }
    prefixMessages.forEach((m, i) => {
      this.#message(b, m, i, m.cacheBreakpoint === true)
    })
    const hasPrefix = typeof prefix === 'string' ? prefix !== '' : prefixMessages.length > 0
    if (options.cacheContextPrefix && hasPrefix) {
      b.marks.add(b.w.lastBlock())
      b.w.seal()
    }
    messages.forEach((m, i) => {
      this.#message(b, m, prefixMessages.length + i, b.marks.wants(m, i))
    })
    const assistantPrefill = this.#finalTurn(
      b,
      messages.length > 0 ? messages : prefixMessages,
      options,
    )
    const stops = participantStops(b.speakers, b.assistant, b.user, this.#maxStops)
    if (this.toolMode === 'xml' && tools.length > 0) stops.push('</function_calls>')
    const request: FormattedRequest = {
      messages: b.w.messages(),
      system: system.blocks,
      stopSequences: mergeStops(stops, options.stopSequences),
      cacheMarkersApplied: b.marks.apply(),
      warnings: b.warnings,
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

  /** Close the transcript: continue the assistant's own last turn or open a new one. */
  #finalTurn(
    b: Build,
    conversation: readonly Message[],
    options: BuildOptions,
  ): string | undefined {
    const { w } = b
    const last = conversation[conversation.length - 1]
    const continues =
      last !== undefined &&
      b.lastSpeaker === b.assistant &&
      (last.role === 'assistant' || b.lastContinued)
    const prefill = options.prefill ?? ''
    let tail = ''
    if (continues && b.turnText.trim() !== '') {
      // a partial answer is continued: no thinking block opens mid-answer; a prefill is joined
      // with the transcript's separator (unless it brings its own whitespace)
      if (options.thinking) {
        b.warnings.push({
          code: 'thinking_not_opened',
          message:
            'thinking was requested, but the final assistant message is continued; no thinking block is opened mid-answer',
          details: { formatter: this.name },
        })
      }
      if (prefill !== '') {
        w.trimEnd()
        b.turnText = b.turnText.trimEnd()
        tail = /^\s/.test(prefill) ? prefill : this.#sep + prefill
      }
    } else {
      if (!continues) {
        w.text('assistant', `${b.started ? this.#sep : ''}${b.assistant}:`)
        b.turnText = ''
      }
      if (options.thinking) tail += ' <thinking>'
      if (prefill !== '') tail += ` ${prefill}`
    }
    w.text('assistant', tail)
    b.turnText += tail
    w.trimEnd()
    const finalRole = w.messages()[w.messages().length - 1]?.role
    const text = b.turnText.trimEnd()
    return finalRole === 'assistant' && text !== '' ? text : undefined
  }

  /** Write one transcript message (`index` counts prefix messages first). */
  #message(b: Build, message: Message, index: number, breakpoint: boolean): void {
    const { w } = b
    const name = speakerOf(message, b.assistant, b.user)
    const speaker =
      name === b.assistant || name === b.user || b.checked.has(name)
        ? name
        : checkParticipantName(name, `message ${index} participant`)
    b.checked.add(speaker)
    const resultsOnly =
      message.content.length > 0 && message.content.every((c) => c.type === 'tool_result')
    // tool results continue the turn they answer, without a new name
    const continuing = resultsOnly && b.started && b.lastSpeaker !== undefined
    b.lastContinued = continuing
    let pending = ''
    if (!continuing) {
      b.speakers.push(speaker)
      pending = `${b.started ? this.#sep : ''}${speaker}:`
      b.lastSpeaker = speaker
      b.turnText = ''
    }
    b.started = true
    let prev: 'text' | 'xml' | undefined = continuing ? 'xml' : undefined
    const inline = (piece: string, kind: 'text' | 'xml'): void => {
      const joiner = prev === undefined ? ' ' : prev === 'text' && kind === 'text' ? '' : '\n'
      raw(joiner + piece)
      prev = kind
    }
    const raw = (piece: string): void => {
      pending += piece
      b.turnText += piece
    }
    const interrupt = (role: 'user' | 'assistant', block: FormattedBlock): void => {
      w.text('assistant', pending)
      pending = ''
      w.block(role, block)
      if (role === 'user') b.turnText = ''
      prev = 'xml'
    }
    const blocks = message.content
    let i = 0
    while (i < blocks.length) {
      const block = blocks[i]!
      if (block.type === 'text') {
        if (block.text !== '') inline(block.text, 'text')
        i++
      } else if (block.type === 'thinking') {
        inline(
          `<thinking>${escapeBlockText(block.thinking, this.#thinkingCloses)}</thinking>`,
          'xml',
        )
        i++
      } else if (block.type === 'redacted_thinking') {
        // encrypted reasoning has no place in an XML transcript: omitted (see README)
        i++
      } else if (block.type === 'image') {
        interrupt('user', toImageBlock(block))
        i++
      } else if (this.toolMode === 'xml') {
        let j = i
        while (j < blocks.length && blocks[j]!.type === block.type) j++
        if (block.type === 'tool_call') {
          inline(renderXmlToolCalls(blocks.slice(i, j) as ToolCallBlock[]), 'xml')
        } else {
          const results = (blocks.slice(i, j) as ToolResultBlock[]).map((r) =>
            this.#media === 'split' ? r : this.#textOnly(r, this.#media, index, b.warnings),
          )
          xmlToolResultSegments(results).forEach((segment, k) => {
            if (typeof segment !== 'string') interrupt('user', toImageBlock(segment))
            else if (k === 0) inline(segment, 'xml')
            else raw(segment)
          })
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
    w.text('assistant', pending)
    if (breakpoint) {
      b.marks.add(w.lastBlock())
      w.seal()
    }
  }

  #textOnly(
    result: ToolResultBlock,
    policy: 'error' | 'strip',
    index: number,
    warnings: FormatWarning[],
  ): ToolResultBlock {
    if (result.content.every((c) => c.type === 'text')) return result
    return {
      ...result,
      content: result.content.map((c) => {
        if (c.type === 'text') return c
        unsupported(policy, c, this.name, index, warnings, this.#warnOnStrip)
        return { type: 'text' as const, text: '[image omitted]' }
      }),
    }
  }
}
