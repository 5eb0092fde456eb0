import type { ContentBlock, Message, ToolResultBlock } from '@contextkit/core'
import { escapeBlockText } from './block-text.js'
import { CacheMarks } from './cache-markers.js'
import { type ToolResultMediaPolicy, toImageBlock } from './media.js'
import { checkParticipantName, type NameLabel } from './participants.js'
import { TranscriptWriter } from './transcript-writer.js'
import type { BuildOptions, FormattedBlock, FormatWarning } from './types.js'
import { xmlToolCallsText, xmlToolResultSegments, xmlToolResultsText } from './xml-tools.js'

/** What {@link XmlTranscript} takes from its formatter's options. */
export interface XmlTranscriptSettings {
  toolMode: 'xml' | 'native'
  media: ToolResultMediaPolicy
  /** Text between transcript messages. */
  sep: string
  /** How a speaker is written before their text (`participantFormat`). */
  label: NameLabel
  /** Closing tags thinking text must not contain (see `escapeBlockText`). */
  thinkingCloses: readonly string[]
  /** A result with its images replaced by text under `'error'`/`'strip'` (warnings recorded). */
  textOnly(
    result: ToolResultBlock,
    policy: 'error' | 'strip',
    index: number,
    warnings: FormatWarning[],
  ): ToolResultBlock
}

/** The piece written last in the current message: nothing yet, prose, or an XML element. */
const NONE = 0
const TEXT = 1
const XML = 2
type Piece = typeof NONE | typeof TEXT | typeof XML

/**
 * The multi-participant transcript of one `AnthropicXmlFormatter.buildMessages` call, written in
 * one pass: each message's pieces are appended to one pending string that goes into the
 * transcript when the message ends or a block that is not text (an image, a native tool block)
 * interrupts it.
 */
export class XmlTranscript {
  readonly w = new TranscriptWriter()
  readonly marks: CacheMarks
  readonly warnings: FormatWarning[] = []
  /** Speakers in order, one per named turn. */
  readonly speakers: string[] = []
  readonly assistant: string
  readonly user: string
  /** Text written since the current speaker's name (what a continued turn already holds). */
  turnText = ''
  lastSpeaker: string | undefined
  lastContinued = false
  /** Something is already in the transcript (the next speaker is preceded by the separator). */
  started = false
  readonly #settings: XmlTranscriptSettings
  /** Participant names already checked. */
  readonly #checked = new Set<string>()
  /** Text of the current message not yet in the transcript. */
  #pending = ''
  #prev: Piece = NONE

  constructor(settings: XmlTranscriptSettings, options: BuildOptions) {
    this.#settings = settings
    this.marks = new CacheMarks(options)
    this.assistant = checkParticipantName(options.assistantName ?? 'Assistant', 'assistantName')
    this.user = checkParticipantName(options.userName ?? 'User', 'userName')
  }

  /** Write one transcript message (`index` counts prefix messages first). */
  message(message: Message, index: number, breakpoint: boolean): void {
    const blocks = message.content
    const speaker = this.#speaker(message, index)
    // tool results continue the turn they answer, without a new name
    const continuing = resultsOnly(blocks) && this.started && this.lastSpeaker !== undefined
    this.lastContinued = continuing
    this.#pending = ''
    this.#prev = continuing ? XML : NONE
    if (!continuing) {
      this.speakers.push(speaker)
      const label = this.#settings.label.of(speaker)
      this.w.text('assistant', this.started ? `${this.#settings.sep}${label}` : label)
      this.lastSpeaker = speaker
      this.turnText = ''
    }
    this.started = true
    let i = 0
    while (i < blocks.length) i = this.#block(blocks, i, index)
    this.#flush()
    if (breakpoint) {
      this.marks.add(this.w.lastBlock())
      this.w.seal()
    }
  }

  #speaker(message: Message, index: number): string {
    const name = message.participant ?? (message.role === 'assistant' ? this.assistant : this.user)
    if (name === this.assistant || name === this.user || this.#checked.has(name)) return name
    checkParticipantName(name, `message ${index} participant`)
    this.#checked.add(name)
    return name
  }

  /** Write `blocks[i]` (with the run of tool blocks of its type in XML mode); the next index. */
  #block(blocks: readonly ContentBlock[], i: number, index: number): number {
    const block = blocks[i]!
    switch (block.type) {
      case 'text':
        if (block.text !== '') this.#inline(block.text, TEXT)
        return i + 1
      case 'thinking':
        this.#inline(
          `<thinking>${escapeBlockText(block.thinking, this.#settings.thinkingCloses)}</thinking>`,
          XML,
        )
        return i + 1
      case 'redacted_thinking':
        // encrypted reasoning has no place in an XML transcript: omitted (see README)
        return i + 1
      case 'image':
        this.#interrupt('user', toImageBlock(block))
        return i + 1
    }
    if (this.#settings.toolMode === 'xml') {
      let j = i + 1
      while (j < blocks.length && blocks[j]!.type === block.type) j++
      if (block.type === 'tool_call') this.#inline(xmlToolCallsText(blocks, i, j), XML)
      else this.#results(blocks, i, j, index)
      return j
    }
    if (block.type === 'tool_call') {
      this.#interrupt('assistant', {
        type: 'tool_use',
        id: block.id,
        name: block.name,
        input: block.input,
      })
    } else {
      this.#interrupt('user', {
        type: 'tool_result',
        tool_use_id: block.toolCallId,
        content: block.content.map((c) =>
          c.type === 'text' ? { type: 'text', text: c.text } : toImageBlock(c),
        ),
        ...(block.isError ? { is_error: true } : {}),
      })
    }
    return i + 1
  }

  /** A run of tool results `blocks[i..j)` as one `<function_results>` block (XML mode). */
  #results(blocks: readonly ContentBlock[], i: number, j: number, index: number): void {
    const text = xmlToolResultsText(blocks, i, j)
    if (text !== undefined) {
      this.#inline(text, XML)
      return
    }
    const settings = this.#settings
    const media = settings.media
    const results = (blocks.slice(i, j) as ToolResultBlock[]).map((r) =>
      media === 'split' ? r : settings.textOnly(r, media, index, this.warnings),
    )
    xmlToolResultSegments(results).forEach((segment, k) => {
      if (typeof segment !== 'string') this.#interrupt('user', toImageBlock(segment))
      else if (k === 0) this.#inline(segment, XML)
      else this.#pending += segment
    })
  }

  /** Append a piece, joined to the previous one by a space (first), nothing (prose after prose) or a line break. */
  #inline(piece: string, kind: Piece): void {
    const prev = this.#prev
    this.#pending += (prev === NONE ? ' ' : prev === TEXT && kind === TEXT ? '' : '\n') + piece
    this.#prev = kind
  }

  /** A block that is not text: what is pending goes first. */
  #interrupt(role: 'user' | 'assistant', block: FormattedBlock): void {
    this.#flush()
    this.w.block(role, block)
    if (role === 'user') this.turnText = ''
    this.#prev = XML
  }

  #flush(): void {
    const pending = this.#pending
    if (pending === '') return
    this.w.text('assistant', pending)
    this.turnText += pending
    this.#pending = ''
  }
}

function resultsOnly(blocks: readonly ContentBlock[]): boolean {
  if (blocks.length === 0) return false
  for (const b of blocks) if (b.type !== 'tool_result') return false
  return true
}
