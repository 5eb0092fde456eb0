import {
  ConfigurationError,
  type ContentBlock,
  type Message,
  type ToolCallBlock,
  type ToolResultBlock,
  textMessage,
} from '@contextkit/core'
import { CacheMarks, lastMarkable } from './cache-markers.js'
import { PrefillUnsupportedError, TooManyParticipantsError } from './errors.js'
import { toImageBlock } from './media.js'
import { checkOptions } from './option-keys.js'
import {
  checkParticipantName,
  mergeStops,
  type NameLabel,
  nameLabel,
  speakerOf,
} from './participants.js'
import { PassThroughStreamParser } from './passthrough-parser.js'
import { buildSystem } from './system-prompt.js'
import type {
  BuildOptions,
  FormattedBlock,
  FormattedMessage,
  FormattedRequest,
  Formatter,
  ParserOptions,
  StreamParser,
} from './types.js'
import { withUserSections } from './user-sections.js'
import { parseBuildOptions, parseMessages, parseToolResults, rejectsPrefill } from './validate.js'

/** Options of {@link NativeFormatter}. */
export interface NativeFormatterOptions {
  /**
   * `'simple'`: exactly two parties, user and assistant (a third speaker throws
   * {@link TooManyParticipantsError}); `'multiuser'`: user-role text is prefixed `Name: `.
   * Default `'simple'`.
   */
  participantMode?: 'simple' | 'multiuser'
  /**
   * `'multiuser'` only: how a speaker is written before their text, a template with `{name}`
   * once (e.g. `'<{name}> '`, `'[{name}]\n'`); a message with no text gets the label without its
   * trailing whitespace as a text block of its own. Default `'{name}: '` (`Alice: text`).
   */
  nameFormat?: string
}

function toFormatted(block: ContentBlock): FormattedBlock {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text }
    case 'image':
      return toImageBlock(block)
    case 'thinking':
      return block.signature === undefined
        ? { type: 'thinking', thinking: block.thinking }
        : { type: 'thinking', thinking: block.thinking, signature: block.signature }
    case 'redacted_thinking':
      return { type: 'redacted_thinking', data: block.data }
    case 'tool_call':
      return { type: 'tool_use', id: block.id, name: block.name, input: block.input }
    case 'tool_result':
      return {
        type: 'tool_result',
        tool_use_id: block.toolCallId,
        content: block.content.map((c) =>
          c.type === 'text' ? { type: 'text', text: c.text } : toImageBlock(c),
        ),
        ...(block.isError ? { is_error: true } : {}),
      }
  }
}

/**
 * Plain user/assistant messages with the provider's native tools and thinking blocks; no
 * stop sequences. Consecutive same-role messages are merged into one message, with a blank
 * line put before the later message's text so nothing is glued together.
 */
export class NativeFormatter implements Formatter {
  /** {@inheritDoc Formatter.name} */
  readonly name = 'native'
  /** {@inheritDoc Formatter.usesPrefill} */
  readonly usesPrefill = false
  /** {@inheritDoc NativeFormatterOptions.participantMode} */
  readonly participantMode: 'simple' | 'multiuser'
  readonly #label: NameLabel

  constructor(options: NativeFormatterOptions = {}) {
    checkOptions(options, 'new NativeFormatter')
    this.participantMode = options.participantMode ?? 'simple'
    if (this.participantMode !== 'simple' && this.participantMode !== 'multiuser')
      throw new ConfigurationError(
        `participantMode must be 'simple' or 'multiuser', got ${String(this.participantMode)}`,
      )
    if (options.nameFormat !== undefined && this.participantMode !== 'multiuser')
      throw new ConfigurationError(
        "nameFormat labels speakers in participantMode 'multiuser' only; 'simple' mode writes no names",
      )
    this.#label = nameLabel(options.nameFormat ?? '{name}: ', 'nameFormat')
  }

  /** {@inheritDoc Formatter.formatToolDefinitions} */
  formatToolDefinitions(): undefined {
    return undefined
  }

  /** Native results need no text form; this renders them readably (for logs). */
  formatToolResults(results: readonly ToolResultBlock[]): string {
    return parseToolResults(results)
      .map(
        (r) =>
          `[${r.isError ? 'error' : 'result'} ${r.toolCallId}] ${r.content.map((c) => (c.type === 'text' ? c.text : '[image]')).join('\n')}`,
      )
      .join('\n')
  }

  /** {@inheritDoc Formatter.createStreamParser} */
  createStreamParser(options?: ParserOptions): StreamParser {
    checkOptions(options, 'parser', 'createStreamParser')
    return new PassThroughStreamParser()
  }

  /** Native tool calls arrive as structured blocks, never in text: always `[]`. */
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
    const system = buildSystem(options.system)
    const marks = new CacheMarks(options)
    marks.add(system.cacheAfter)
    const out: FormattedMessage[] = []
    const parties = new Map<'user' | 'assistant', string>()
    const prefix = options.contextPrefix
    const prefixMessages: readonly Message[] =
      typeof prefix === 'string'
        ? prefix === ''
          ? []
          : [textMessage('user', prefix)]
        : (prefix ?? [])
    const all = [...prefixMessages, ...messages]
    all.forEach((message, index) => {
      const own = index - prefixMessages.length
      const breakpoint =
        own >= 0
          ? marks.wants(message, own)
          : message.cacheBreakpoint === true || (options.cacheContextPrefix === true && own === -1)
      const speaker = checkParticipantName(
        speakerOf(message, assistant, user),
        `message ${index} participant`,
      )
      if (this.participantMode === 'simple') {
        const known = parties.get(message.role)
        if (known !== undefined && known !== speaker) {
          throw new TooManyParticipantsError(
            `NativeFormatter in 'simple' mode got a second ${message.role} speaker (${JSON.stringify(known)} and ${JSON.stringify(speaker)}); use participantMode 'multiuser'`,
            { details: { messageIndex: index, speakers: [known, speaker] } },
          )
        }
        parties.set(message.role, speaker)
      }
      const blocks = message.content.map(toFormatted)
      if (this.participantMode === 'multiuser' && message.role === 'user') {
        const first = blocks.find((b) => b.type === 'text')
        if (first && first.type === 'text') first.text = this.#label.of(speaker) + first.text
        else if (!blocks.every((b) => b.type === 'tool_result'))
          blocks.unshift({ type: 'text', text: this.#label.head(speaker) })
      }
      // the API rejects whitespace-only text blocks: such text joins the text block before it
      // (so nothing is glued together) or, with none, is dropped
      const kept: FormattedBlock[] = []
      for (const b of blocks) {
        const before = kept[kept.length - 1]
        if (b.type !== 'text' || b.text.trim() !== '') kept.push(b)
        else if (before?.type === 'text') before.text += b.text
      }
      if (kept.length === 0) {
        if (breakpoint) marks.add(lastMarkable(out[out.length - 1]?.content ?? []))
        return
      }
      const prev = out[out.length - 1]
      if (prev && prev.role === message.role) {
        const head = kept[0]
        const tail = prev.content[prev.content.length - 1]
        if (head?.type === 'text' && tail?.type === 'text') head.text = `\n\n${head.text}`
        prev.content.push(...kept)
      } else {
        out.push({ role: message.role, content: kept })
      }
      if (breakpoint) marks.add(lastMarkable(kept))
    })
    let assistantPrefill: string | undefined
    const prefill = options.prefill?.trimEnd()
    const last = out[out.length - 1]
    if (prefill && rejectsPrefill(options.model)) {
      throw new PrefillUnsupportedError(
        `a prefill ends the request with an assistant turn, which ${options.model.id} rejects; send it without one`,
        { details: { model: options.model.id } },
      )
    }
    if (prefill) {
      if (last?.role === 'assistant') {
        const tail = last.content[last.content.length - 1]
        // joined like merged messages: a blank line, unless the prefill brings its own whitespace
        if (tail?.type === 'text')
          tail.text = /^\s/.test(prefill)
            ? tail.text.trimEnd() + prefill
            : `${tail.text.trimEnd()}\n\n${prefill}`
        else last.content.push({ type: 'text', text: prefill })
      } else {
        out.push({ role: 'assistant', content: [{ type: 'text', text: prefill }] })
      }
    }
    const final = out[out.length - 1]
    if (final?.role === 'assistant') {
      const tail = final.content[final.content.length - 1]
      if (tail?.type === 'text') {
        tail.text = tail.text.trimEnd()
        if (tail.text === '') final.content.pop()
        else assistantPrefill = tail.text
      }
      if (final.content.length === 0) out.pop()
    }
    const request: FormattedRequest = {
      messages: out,
      system: system.blocks,
      stopSequences: mergeStops([], options.stopSequences),
      cacheMarkersApplied: marks.apply(),
      warnings: [],
    }
    if (assistantPrefill !== undefined) request.assistantPrefill = assistantPrefill
    const tools = options.tools ?? []
    if (tools.length > 0) {
      request.nativeTools = tools.map((t) => ({
        name: t.name,
        description: t.description,
        input_schema: t.inputSchema,
      }))
    }
    return request
  }
}
