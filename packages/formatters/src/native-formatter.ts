import {
  ConfigurationError,
  type Message,
  type ToolCallBlock,
  type ToolResultBlock,
  textMessage,
} from '@contextkit/core'
import { CacheMarks } from './cache-markers.js'
import { PrefillUnsupportedError, TooManyParticipantsError } from './errors.js'
import { Assembly, type AssemblyCheckpoint, type Parties } from './native-assembly.js'
import { nativeMessage, toFormatted, withoutBlankText, writableMessage } from './native-message.js'
import { checkOptions } from './option-keys.js'
import {
  checkParticipantName,
  mergeStops,
  type NameLabel,
  nameLabel,
  speakerOf,
} from './participants.js'
import { PassThroughStreamParser } from './passthrough-parser.js'
import {
  memoState,
  type NativeAssemblyKey,
  type RequestMemo,
  type RequestMemoState,
  sameKey,
  samePrefix,
} from './request-memo.js'
import { shareCheckpoint, sharedCheckpoint } from './shared-checkpoints.js'
import { buildSystem } from './system-prompt.js'
import type {
  BuildOptions,
  CheckedBuildOptions,
  FormattedMessage,
  FormattedRequest,
  FormattedTextBlock,
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
  /** The label format `#label` was made from (what a resumed assembly must have used too). */
  readonly #nameFormat: string

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
    this.#nameFormat = options.nameFormat ?? '{name}: '
    this.#label = nameLabel(this.#nameFormat, 'nameFormat')
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

  /**
   * Render a request (see {@link Formatter.buildMessages}); throws typed errors on input the
   * format cannot represent. Each message is rendered once and shared, frozen, by every request
   * that holds it unchanged (a message changed in place is rendered again): copy a returned
   * message before changing it. With a `memo` ({@link RequestMemo}), the messages the previous
   * request began with are not checked or put together again either.
   */
  buildMessages(
    input: readonly Message[],
    buildOptions?: BuildOptions,
    memo?: RequestMemo,
  ): FormattedRequest {
    const options = parseBuildOptions(buildOptions)
    const state = memoState(memo)
    const checked = state ? state.checked(input) : parseMessages(input)
    // a list of this request's own (withUserSections copies): the memo may keep it as it is
    const messages = withUserSections(checked, options.userSections)
    const system = buildSystem(options.system)
    const marks = new CacheMarks(options)
    marks.add(system.cacheAfter)
    const out = this.#conversation({ messages, given: checked }, options, marks, state)
    const assistantPrefill = openAssistantTurn(out, options)
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

  /**
   * The context prefix and the conversation as native messages, same-role neighbours merged,
   * with the cache markers they ask for requested on `marks`. With a memo, resumes from the
   * checkpoint of the messages the previous request began with, and leaves one for the next.
   */
  #conversation(
    { messages, given }: { messages: readonly Message[]; given: readonly Message[] },
    options: CheckedBuildOptions,
    marks: CacheMarks,
    state: RequestMemoState | undefined,
  ): FormattedMessage[] {
    const assistant = checkParticipantName(options.assistantName ?? 'Assistant', 'assistantName')
    const user = checkParticipantName(options.userName ?? 'User', 'userName')
    const names = { assistant, user }
    // a caller's hasCacheMarker may decide anew on every call: nothing is resumed then
    const key = options.hasCacheMarker === undefined ? this.#assemblyKey(options, names) : undefined
    const same = state?.sameStart(messages)
    const from = resumePoint(key, state, same, messages)
    // the checkpoint for the next request: where this one stops being the previous one; on a
    // memo's first request, where the messages stop being the ones given (user sections went in)
    // and before the last message marked for the cache (the next request marks another one, and
    // a loop's marked message is a copy made for this request alone)
    const keep =
      same ?? (key ? Math.min(samePrefix(messages, given), lastMarked(messages, marks)) : 0)
    // a checkpoint not resumed from may not match the conversation remembered now: dropped; one
    // shared by an earlier memo is this memo's own from now on
    if (state) state.native = from && key ? { key, checkpoint: from } : undefined
    const assembly = new Assembly(marks, from)
    const prefix = contextPrefixOf(options)
    if (!from) {
      prefix.forEach((message, index) => {
        const last = index === prefix.length - 1
        const breakpoint =
          message.cacheBreakpoint === true || (options.cacheContextPrefix === true && last)
        this.#add(assembly, message, { index, breakpoint }, names)
      })
    }
    for (let own = from?.count ?? 0; own <= messages.length; own++) {
      if (key && state && own === keep && own !== from?.count) {
        state.native = { key, checkpoint: assembly.checkpoint(own) }
        // a memo's first request offers its checkpoint to the next memo (the next run)
        if (same === undefined)
          shareCheckpoint(key, messages, state.native.checkpoint, {
            from,
            labelled: this.participantMode === 'multiuser',
          })
      }
      const message = messages[own]
      if (message === undefined) break
      const at = { index: prefix.length + own, breakpoint: marks.wants(message, own) }
      this.#add(assembly, message, at, names)
    }
    return assembly.out
  }

  /**
   * Add one message: its speaker checked (`index`: where it is among the context prefix and
   * the conversation, for the error), rendered, appended with the cache marker it asks for.
   */
  #add(
    assembly: Assembly,
    message: Message,
    at: { index: number; breakpoint: boolean },
    names: Names,
  ): void {
    const speaker = speakerOf(message, names.assistant, names.user)
    // the default names were checked already: only a message's own participant needs a look
    if (speaker !== names.assistant && speaker !== names.user)
      checkParticipantName(speaker, `message ${at.index} participant`)
    if (this.participantMode === 'simple')
      oneSpeaker(assembly.parties, message.role, speaker, at.index)
    const labelled = this.participantMode === 'multiuser' && message.role === 'user'
    const rendered = labelled ? this.#labelled(message, speaker) : nativeMessage(message)
    assembly.append(rendered, at.breakpoint)
  }

  /** What this formatter's assembly of a request depends on besides its messages. */
  #assemblyKey(options: CheckedBuildOptions, names: Names): NativeAssemblyKey {
    return [
      this.participantMode,
      this.#nameFormat,
      names.assistant,
      names.user,
      options.contextPrefix,
      options.cacheContextPrefix === true,
      options.promptCaching !== false,
    ]
  }

  /**
   * A user message in `'multiuser'` mode, its speaker's label before its first text (or as a
   * text block of its own); rendered afresh (the label goes in before blank text is dropped).
   */
  #labelled(message: Message, speaker: string): FormattedMessage | undefined {
    const blocks = message.content.map(toFormatted)
    const first = blocks.find((b) => b.type === 'text')
    if (first && first.type === 'text') first.text = this.#label.of(speaker) + first.text
    else if (!blocks.every((b) => b.type === 'tool_result'))
      blocks.unshift({ type: 'text', text: this.#label.head(speaker) })
    const kept = withoutBlankText(blocks)
    return kept.length === 0 ? undefined : { role: message.role, content: kept }
  }
}

/**
 * The checkpoint a request resumes from: the previous request's of the same memo when this one
 * begins with the messages it holds (`same`: how many it begins with); on a memo's first request,
 * one an earlier memo shared for the same sealed messages.
 */
function resumePoint(
  key: NativeAssemblyKey | undefined,
  state: RequestMemoState | undefined,
  same: number | undefined,
  messages: readonly Message[],
): AssemblyCheckpoint | undefined {
  if (key === undefined || state === undefined) return undefined
  if (same === undefined) return sharedCheckpoint(key, messages)
  const saved = state.native
  return saved && sameKey(saved.key, key) && saved.checkpoint.count <= same
    ? saved.checkpoint
    : undefined
}

/** Index of the last of `messages` that wants a cache marker; `messages.length` when none does. */
function lastMarked(messages: readonly Message[], marks: CacheMarks): number {
  for (let i = messages.length - 1; i >= 0; i--) {
    if (marks.wants(messages[i] as Message, i)) return i
  }
  return messages.length
}

/** The context prefix's messages (they go before the conversation). */
function contextPrefixOf(options: CheckedBuildOptions): readonly Message[] {
  const prefix = options.contextPrefix
  if (typeof prefix !== 'string') return prefix ?? []
  return prefix === '' ? [] : [textMessage('user', prefix)]
}

/** The participant names of a request. */
interface Names {
  assistant: string
  user: string
}

/** In `'simple'` mode, refuse a second speaker of one role. */
function oneSpeaker(
  parties: Parties,
  role: 'user' | 'assistant',
  speaker: string,
  index: number,
): void {
  const known = parties[role]
  if (known !== undefined && known !== speaker) {
    throw new TooManyParticipantsError(
      `NativeFormatter in 'simple' mode got a second ${role} speaker (${JSON.stringify(known)} and ${JSON.stringify(speaker)}); use participantMode 'multiuser'`,
      { details: { messageIndex: index, speakers: [known, speaker] } },
    )
  }
  parties[role] = speaker
}

/**
 * The end of the request: the prefill opens (or continues) the assistant's turn, and a final
 * assistant text loses its trailing whitespace (the API refuses it), an empty one is left out.
 * Returns the text the reply continues, if the request ends in one.
 *
 * @throws PrefillUnsupportedError when a prefill is given for a model that rejects one.
 */
function openAssistantTurn(
  out: FormattedMessage[],
  options: CheckedBuildOptions,
): string | undefined {
  const prefill = options.prefill?.trimEnd()
  if (prefill && rejectsPrefill(options.model)) {
    throw new PrefillUnsupportedError(
      `a prefill ends the request with an assistant turn, which ${options.model.id} rejects; send it without one`,
      { details: { model: options.model.id } },
    )
  }
  if (prefill) {
    if (out[out.length - 1]?.role === 'assistant') {
      const last = writableMessage(out, out.length - 1)
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
  return trimFinalTurn(out)
}

/** Trim a final assistant text (dropping it, and the message, when nothing is left); returns it. */
function trimFinalTurn(out: FormattedMessage[]): string | undefined {
  const at = out.length - 1
  const final = out[at]
  if (final?.role !== 'assistant') return undefined
  const tail = final.content[final.content.length - 1]
  if (tail?.type !== 'text') {
    if (final.content.length === 0) out.pop()
    return undefined
  }
  const text = tail.text.trimEnd()
  if (text === tail.text && text !== '') return text
  const own = writableMessage(out, at)
  if (text !== '') {
    ;(own.content[own.content.length - 1] as FormattedTextBlock).text = text
    return text
  }
  own.content.pop()
  if (own.content.length === 0) out.pop()
  return undefined
}
