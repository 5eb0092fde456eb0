import {
  ConfigurationError,
  type Message,
  type ToolCallBlock,
  type ToolResultBlock,
} from '@contextkit/core'
import { checkFlag, checkMediaPolicy, type UnsupportedMediaPolicy, unsupported } from './media.js'
import { checkOptions } from './option-keys.js'
import {
  checkParticipantName,
  mergeStops,
  type NameLabel,
  nameLabel,
  participantStops,
  speakerOf,
} from './participants.js'
import { PassThroughStreamParser } from './passthrough-parser.js'
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
import { parseBuildOptions, parseMessages, parseToolResults } from './validate.js'

/** Options of {@link CompletionsFormatter}. */
export interface CompletionsFormatterOptions {
  /** End-of-turn token written after each message. Default `'<|eot|>'`. */
  eotToken?: string
  /**
   * How a speaker is written before their text: a template with `{name}` once, e.g.
   * `'### {name}:\n'` or `'[{name}] '`. An open turn ends with the label without its trailing
   * whitespace; stop sequences are a line break and that. Default `'{name}: '` (`Name: text`).
   */
  nameFormat?: string
  /** Text between messages. Default `'\n\n'`. */
  messageSeparator?: string
  /** At most this many participant stop sequences. Default `10`. */
  maxParticipantsForStop?: number
  /**
   * Images, thinking and tool blocks (a base model has no place for them): `'strip'` drops
   * them with a warning, `'error'` throws `UnsupportedContentError`. Default `'strip'`.
   */
  unsupportedMedia?: UnsupportedMediaPolicy
  /** Record a `<type>_stripped` warning on the request for each block `'strip'` drops. Default `true`. */
  warnOnStrip?: boolean
  /** Text containing the eot token: `'reject'` throws, `'escape'` breaks it with U+200B. Default `'reject'`. */
  specialTokens?: SpecialTokenPolicy
}

/**
 * Base-model transcripts: `Name: content<eot>` joined by a separator, ending with
 * `{assistant}:`, rendered to one prompt string; output is plain text (pass-through parser).
 */
export class CompletionsFormatter implements Formatter {
  /** {@inheritDoc Formatter.name} */
  readonly name = 'completions'
  /** {@inheritDoc Formatter.usesPrefill} */
  readonly usesPrefill = true
  readonly #eot: string
  readonly #sep: string
  readonly #maxStops: number
  readonly #media: UnsupportedMediaPolicy
  readonly #policy: SpecialTokenPolicy
  readonly #warnOnStrip: boolean
  readonly #label: NameLabel

  constructor(options: CompletionsFormatterOptions = {}) {
    checkOptions(options, 'new CompletionsFormatter')
    this.#label = nameLabel(options.nameFormat ?? '{name}: ', 'nameFormat')
    this.#eot = options.eotToken ?? '<|eot|>'
    this.#sep = options.messageSeparator ?? '\n\n'
    this.#maxStops = options.maxParticipantsForStop ?? 10
    this.#media = options.unsupportedMedia ?? 'strip'
    this.#policy = options.specialTokens ?? 'reject'
    this.#warnOnStrip = options.warnOnStrip ?? true
    checkFlag(options.warnOnStrip, 'warnOnStrip')
    if (!Number.isInteger(this.#maxStops) || this.#maxStops < 0)
      throw new ConfigurationError('maxParticipantsForStop must be a non-negative integer')
    if (this.#policy !== 'reject' && this.#policy !== 'escape')
      throw new ConfigurationError(`specialTokens must be 'reject' or 'escape'`)
    if (typeof this.#eot !== 'string') throw new ConfigurationError('eotToken must be a string')
    if (typeof this.#sep !== 'string')
      throw new ConfigurationError('messageSeparator must be a string')
    checkMediaPolicy(this.#media)
  }

  /** Base models get no tool definitions: always `undefined`. */
  formatToolDefinitions(): undefined {
    return undefined
  }

  /** Results as plain text lines (for callers that feed them back by hand). */
  formatToolResults(results: readonly ToolResultBlock[]): string {
    return parseToolResults(results)
      .map((r) => r.content.map((c) => (c.type === 'text' ? c.text : '[image]')).join('\n'))
      .join('\n')
  }

  /** {@inheritDoc Formatter.createStreamParser} */
  createStreamParser(options?: ParserOptions): StreamParser {
    checkOptions(options, 'parser', 'createStreamParser')
    return new PassThroughStreamParser()
  }

  /** Base models do not call tools: always `[]`. */
  parseToolCalls(_text?: string, options?: ParserOptions): ToolCallBlock[] {
    checkOptions(options, 'parser', 'parseToolCalls')
    return []
  }

  /** {@inheritDoc Formatter.hasToolUse} */
  hasToolUse(_text?: string, options?: ParserOptions): boolean {
    checkOptions(options, 'parser', 'hasToolUse')
    return false
  }

  /** {@inheritDoc Formatter.buildMessages} */
  buildMessages(input: readonly Message[], buildOptions?: BuildOptions): FormattedRequest {
    const options = parseBuildOptions(buildOptions)
    const messages = withUserSections(parseMessages(input), options.userSections)
    const assistant = checkParticipantName(options.assistantName ?? 'Assistant', 'assistantName')
    const user = checkParticipantName(options.userName ?? 'User', 'userName')
    const warnings: FormatWarning[] = []
    const label = this.#label
    const guard = (text: string, where: string): string =>
      this.#eot === '' ? text : guardSpecialTokens(text, [this.#eot], this.#policy, where)
    const parts: string[] = []
    const sys = systemText(options.system)
    if (sys) parts.push(guard(sys, 'system'))
    const prefix = options.contextPrefix
    if (typeof prefix === 'string' && prefix !== '') parts.push(guard(prefix, 'contextPrefix'))
    const all =
      typeof prefix === 'string' || prefix === undefined ? messages : [...prefix, ...messages]
    const speakers: string[] = []
    const last = all[all.length - 1]
    const lastSpeaker = last && speakerOf(last, assistant, user)
    // the assistant's own final message is continued (an empty one is just `{assistant}:`)
    const continues = last !== undefined && lastSpeaker === assistant
    let turn = ''
    all.forEach((message, index) => {
      const where = `message ${index}`
      const speaker = guard(
        checkParticipantName(speakerOf(message, assistant, user), `${where} participant`),
        `${where} participant`,
      )
      speakers.push(speaker)
      let text = ''
      for (const block of message.content) {
        if (block.type === 'text') text += guard(block.text, where)
        else unsupported(this.#media, block, this.name, index, warnings, this.#warnOnStrip)
      }
      if (continues && index === all.length - 1) {
        turn = text.trim() === '' ? '' : label.gap + text.trimEnd()
        parts.push(label.head(speaker) + turn)
      } else {
        parts.push(label.of(speaker) + text + this.#eot)
      }
    })
    if (!continues) {
      parts.push(label.head(assistant))
    }
    let prompt = parts.join(this.#sep)
    const prefill = guard((options.prefill ?? '').trimEnd(), 'prefill')
    if (prefill !== '') {
      // after a partial answer: the separator, unless the prefill brings its own whitespace
      const add =
        turn === '' ? label.gap + prefill : /^\s/.test(prefill) ? prefill : this.#sep + prefill
      prompt += add
      turn += add
    }
    const stops = participantStops(speakers, assistant, user, this.#maxStops, label)
    if (this.#eot !== '') stops.push(this.#eot)
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
}
