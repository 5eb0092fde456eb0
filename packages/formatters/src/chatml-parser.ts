import type { ToolCallBlock } from '@contextkit/core'
import { exceedsJsonDepth } from '@contextkit/core'
import { BlockTextReader } from './block-text.js'
import { parseJsonLossless } from './lossless-json.js'
import { checkOptions } from './option-keys.js'
import { Accumulator, BlockCounter, pushDelta } from './parser-state.js'
import { candidates, scanTags, type TagCandidate, type TagScanTarget } from './tag-scanner.js'
import type { BlockType, ParserOptions, StreamEvent, StreamParser } from './types.js'
import { checkText } from './validate.js'

/** Options of {@link ChatMLStreamParser}. */
export interface ChatMLParserOptions extends ParserOptions {
  /** Prefix of generated tool call ids, followed by a per-parser counter. Default `'toolu_qwen_'`. */
  idPrefix?: string
}

type Mode = 'text' | 'think' | 'call'

/**
 * Incremental parser of chat-template replies with the Qwen/Hermes conventions (every
 * `ChatMLFormatter` preset with `toolFormat: 'json'`): `<think>…</think>` becomes thinking
 * events (one line break after `<think>` and one before `</think>` belong to the tags;
 * character references are decoded, as in the XML parser); a `tool_call` element holding
 * `\{"name": …, "arguments": \{…\}\}` becomes a tool call once its closing tag arrives (start, one
 * parameter event per argument, end with the verbatim `raw`). Arguments keep their JSON types;
 * integers beyond 2^53 − 1 become decimal strings. A `<tool_call>` whose body is not that JSON
 * shape, whose arguments nest deeper than core's `MAX_JSON_DEPTH`, or that the stream cuts off, is
 * released as text, unchanged. Same hold-back rule as the
 * XML parser: only a possible tag start is held.
 */
export class ChatMLStreamParser implements StreamParser {
  readonly #idPrefix: string
  readonly #tags: Record<Mode, TagCandidate[]>
  #carry = ''
  /** Events of the chunk being scanned (set before each scan). */
  #out: StreamEvent[] = []
  readonly #target: TagScanTarget = {
    candidates: () => this.#tags[this.#mode],
    content: (text) => this.#content(text, this.#out),
    tag: (match, data, start) => this.#tag(match.tag, data.slice(start, match.end), this.#out),
  }
  readonly #acc = new Accumulator()
  readonly #blocks = new BlockCounter()
  readonly #thinking = new BlockTextReader(true)
  #mode: Mode = 'text'
  #body = ''
  #counter = 0

  constructor(options: ChatMLParserOptions = {}) {
    checkOptions(options, 'new ChatMLStreamParser')
    this.#idPrefix = options.idPrefix ?? 'toolu_qwen_'
    this.#tags = {
      text: candidates(
        [
          { local: 'think', closing: false },
          { local: 'tool_call', closing: false },
        ],
        [],
      ),
      think: candidates([{ local: 'think', closing: true }], []),
      call: candidates([{ local: 'tool_call', closing: true }], []),
    }
  }

  /** {@inheritDoc StreamParser.processChunk} */
  processChunk(chunk: string): StreamEvent[] {
    checkText(chunk, 'stream chunk')
    const out: StreamEvent[] = []
    this.#acc.add(chunk)
    this.#out = out
    this.#carry = scanTags(this.#carry + chunk, this.#target)
    return out
  }

  /** {@inheritDoc StreamParser.push} */
  push(content: string): void {
    this.processChunk(content)
  }

  /** {@inheritDoc StreamParser.flush} */
  flush(): StreamEvent[] {
    const out: StreamEvent[] = []
    const rest = this.#carry
    this.#carry = ''
    this.#content(rest, out)
    if (this.#mode === 'think') this.#endThinking(out)
    // an unterminated tool call is not a call: release it as text
    if (this.#mode === 'call') this.#text(this.#body, out)
    this.#mode = 'text'
    this.#body = ''
    return out
  }

  /** {@inheritDoc StreamParser.getAccumulated} */
  getAccumulated(): string {
    return this.#acc.text()
  }

  /** {@inheritDoc StreamParser.reset} */
  reset(): void {
    this.#carry = ''
    this.#acc.clear()
    this.#blocks.reset()
    this.#thinking.start()
    this.#mode = 'text'
    this.#body = ''
    this.#counter = 0
  }

  /** {@inheritDoc StreamParser.getCurrentBlockType} */
  getCurrentBlockType(): BlockType {
    return this.#mode === 'think' ? 'thinking' : this.#mode === 'call' ? 'tool-call' : 'text'
  }

  /**
   * Inside a `<tool_call>` the index is the one the call will get; if its body turns out not to
   * be a call, its text joins the text block before it (when there is one).
   */
  getBlockIndex(): number {
    return this.#mode === 'call'
      ? this.#blocks.index(false)
      : this.#blocks.index(this.#mode === 'think')
  }

  #text(text: string, out: StreamEvent[]): void {
    if (text === '') return
    this.#blocks.text()
    pushDelta(out, 'text-delta', text)
  }

  #endThinking(out: StreamEvent[]): void {
    const rest = this.#thinking.end()
    if (rest !== '') pushDelta(out, 'thinking-delta', rest)
    out.push({ type: 'thinking-end' })
  }

  #content(text: string, out: StreamEvent[]): void {
    if (text === '') return
    if (this.#mode === 'text') this.#text(text, out)
    else if (this.#mode === 'think') {
      const decoded = this.#thinking.push(text)
      if (decoded !== '') pushDelta(out, 'thinking-delta', decoded)
    } else this.#body += text
  }

  #tag(tag: TagCandidate, written: string, out: StreamEvent[]): void {
    if (tag.local === 'think') {
      if (tag.closing) {
        this.#endThinking(out)
        this.#mode = 'text'
        return
      }
      this.#mode = 'think'
      this.#blocks.open()
      this.#thinking.start()
      out.push({ type: 'thinking-start' })
      return
    }
    if (!tag.closing) {
      this.#mode = 'call'
      this.#body = written
      return
    }
    const raw = this.#body + written
    this.#mode = 'text'
    this.#body = ''
    const call = this.#decode(raw)
    if (!call) {
      this.#text(raw, out)
      return
    }
    this.#blocks.open()
    out.push({ type: 'tool-call-start', id: call.id, name: call.name })
    for (const [name, value] of Object.entries(call.input)) {
      out.push({ type: 'tool-call-parameter', id: call.id, name, value })
    }
    out.push({ type: 'tool-call-end', call })
  }

  #decode(raw: string): ToolCallBlock | undefined {
    const open = raw.indexOf('>') + 1
    const close = raw.lastIndexOf('<')
    let parsed: unknown
    try {
      parsed = parseJsonLossless(raw.slice(open, close))
    } catch {
      return undefined
    }
    if (typeof parsed !== 'object' || parsed === null) return undefined
    const { name, arguments: args } = parsed as { name?: unknown; arguments?: unknown }
    if (typeof name !== 'string' || name === '') return undefined
    let input: Record<string, unknown> = {}
    if (typeof args === 'string') {
      try {
        const inner = parseJsonLossless(args)
        if (typeof inner !== 'object' || inner === null || Array.isArray(inner)) return undefined
        input = inner as Record<string, unknown>
      } catch {
        return undefined
      }
    } else if (typeof args === 'object' && args !== null && !Array.isArray(args)) {
      input = args as Record<string, unknown>
    } else if (args !== undefined) {
      return undefined
    }
    // deeper than any builder writes: not a call (so what is parsed can always be sent back)
    if (exceedsJsonDepth(input)) return undefined
    this.#counter++
    return { type: 'tool_call', id: `${this.#idPrefix}${this.#counter}`, name, input, raw }
  }
}
