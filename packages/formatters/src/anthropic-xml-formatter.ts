import {
  ConfigurationError,
  type Message,
  type ToolCallBlock,
  type ToolDefinition,
  type ToolResultBlock,
} from '@contextkit/core'
import { PrefillUnsupportedError } from './errors.js'
import {
  type ContentPosition,
  checkFlag,
  checkMediaPolicy,
  type ToolResultMediaPolicy,
  unsupported,
} from './media.js'
import { checkOptions } from './option-keys.js'
import { mergeStops, type NameLabel, nameLabel, participantStops } from './participants.js'
import { buildSystem } from './system-prompt.js'
import type {
  BuildOptions,
  CheckedBuildOptions,
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
  renderXmlToolDefinitions,
  renderXmlToolResults,
  XML_TOOL_PREAMBLE,
} from './xml-tools.js'
import { XmlTranscript, type XmlTranscriptSettings } from './xml-transcript.js'

/** Options of {@link AnthropicXmlFormatter}. */
export interface AnthropicXmlFormatterOptions {
  /** `'xml'`: tools described in the system prompt and called in XML; `'native'`: the API's tools. Default `'xml'`. */
  toolMode?: 'xml' | 'native'
  /**
   * How a speaker is written before their text: a template with `{name}` once, e.g. `'[{name}]'`
   * or `'<{name}>'`. The text follows after a space; the final turn ends with the assistant's
   * label; stop sequences are a line break and the label. No leading or trailing whitespace, no
   * line break. Default `'{name}:'` (`Alice: text`).
   */
  participantFormat?: string
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

/** `participantFormat` checked: `{name}` once, nothing around it that a transcript line cannot hold. */
function participantLabel(format: unknown = '{name}:'): NameLabel {
  const label = nameLabel(format, 'participantFormat')
  if (label.gap !== '' || /[\r\n]/.test(String(format)))
    throw new ConfigurationError(
      `participantFormat must not end in whitespace or hold a line break (the text follows after a space), got ${JSON.stringify(format)}`,
    )
  return label
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
  readonly #settings: XmlTranscriptSettings
  readonly #label: NameLabel

  constructor(options: AnthropicXmlFormatterOptions = {}) {
    checkOptions(options, 'new AnthropicXmlFormatter')
    this.#label = participantLabel(options.participantFormat)
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
    this.#settings = {
      toolMode: this.toolMode,
      media: this.#media,
      sep: this.#sep,
      label: this.#label,
      thinkingCloses: this.#thinkingCloses,
      textOnly: (result, policy, index, warnings) =>
        this.#textOnly(result, policy, index, warnings),
    }
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
      parseToolResults(results).map((r, i) =>
        this.#textOnly(r, policy, { result: i, toolCallId: r.toolCallId }, []),
      ),
    )
  }

  /** {@inheritDoc Formatter.createStreamParser} */
  createStreamParser(options: ParserOptions = {}): StreamParser {
    checkOptions(options, 'parser', 'createStreamParser')
    return new XmlStreamParser({ ...options, namespaces: this.#namespaces })
  }

  /** {@inheritDoc Formatter.parseToolCalls} */
  parseToolCalls(text: string, options: ParserOptions = {}): ToolCallBlock[] {
    checkOptions(options, 'parser', 'parseToolCalls')
    return parseXmlToolCalls(text, { ...options, namespaces: this.#namespaces })
  }

  /** {@inheritDoc Formatter.hasToolUse} */
  hasToolUse(text: string, options: ParserOptions = {}): boolean {
    return this.parseToolCalls(text, options).length > 0
  }

  /** {@inheritDoc Formatter.buildMessages} */
  buildMessages(input: readonly Message[], buildOptions?: BuildOptions): FormattedRequest {
    const options = parseBuildOptions(buildOptions)
    const parsed = parseMessages(input)
    // without sections the messages are only read: no copy
    const messages =
      options.userSections === undefined || options.userSections.length === 0
        ? parsed
        : withUserSections(parsed, options.userSections)
    if (rejectsPrefill(options.model)) {
      throw new PrefillUnsupportedError(
        `AnthropicXmlFormatter ends every request with an assistant turn, which ${options.model.id} rejects; use NativeFormatter for this model`,
        { details: { model: options.model.id } },
      )
    }
    const tools = options.tools ?? []
    const system = buildSystem(options.system, this.formatToolDefinitions(tools))
    const b = new XmlTranscript(this.#settings, options)
    b.marks.add(system.cacheAfter)
    b.w.text('user', this.#opening)
    b.w.seal()
    const prefix = options.contextPrefix
    const prefixMessages = typeof prefix === 'string' || prefix === undefined ? [] : prefix
    if (typeof prefix === 'string' && prefix !== '') {
      b.w.text('assistant', prefix)
      b.started = true
    }
    for (let i = 0; i < prefixMessages.length; i++) {
      const m = prefixMessages[i]!
      b.message(m, i, m.cacheBreakpoint === true)
    }
    const hasPrefix = typeof prefix === 'string' ? prefix !== '' : prefixMessages.length > 0
    if (options.cacheContextPrefix && hasPrefix) {
      b.marks.add(b.w.lastBlock())
      b.w.seal()
    }
    for (let i = 0; i < messages.length; i++) {
      const m = messages[i]!
      b.message(m, prefixMessages.length + i, b.marks.wants(m, i))
    }
    const assistantPrefill = this.#finalTurn(
      b,
      messages.length > 0 ? messages : prefixMessages,
      options,
    )
    const stops = participantStops(b.speakers, b.assistant, b.user, this.#maxStops, this.#label)
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
    b: XmlTranscript,
    conversation: readonly Message[],
    options: CheckedBuildOptions,
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
        w.text('assistant', `${b.started ? this.#sep : ''}${this.#label.of(b.assistant)}`)
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

  #textOnly(
    result: ToolResultBlock,
    policy: 'error' | 'strip',
    index: ContentPosition,
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
