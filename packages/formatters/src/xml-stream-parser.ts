import { BlockTextReader } from './block-text.js'
import { checkOptions } from './option-keys.js'
import { Accumulator, BlockCounter, EventBuffer } from './parser-state.js'
import {
  candidates,
  scanTags,
  type TagCandidate,
  type TagFound,
  type TagScanTarget,
} from './tag-scanner.js'
import type { BlockType, ParserOptions, StreamEvent, StreamParser } from './types.js'
import { checkText } from './validate.js'
import { type CallPart, XmlCallBuilder } from './xml-call-builder.js'
import { unescapeXml } from './xml-escape.js'

/** Options of {@link XmlStreamParser}. */
export interface XmlParserOptions extends ParserOptions {
  /**
   * Namespace prefixes whose tags behave like the plain ones (`<ns:invoke>` = `<invoke>`).
   * Default `['antml']`.
   */
  namespaces?: readonly string[]
  /** Prefix of generated tool call ids, followed by a per-parser counter. Default `'toolu_xml_'`. */
  idPrefix?: string
  /** Local name of the thinking tag. Default `'thinking'` (chat templates use `'think'`). */
  thinkingTag?: string
  /**
   * Drop one line break right after the opening thinking tag and one right before the closing
   * tag (the chat templates' `<think>\n…\n</think>`). Default `false`.
   */
  trimThinkingNewlines?: boolean
}

type Mode = 'text' | 'thinking' | 'calls' | 'call' | 'results' | 'result' | 'error'

/** Inside `<function_calls>` / `<function_results>`: held text, and how many elements came. */
interface Wrapper {
  held: string
  seen: number
}

interface OpenResult {
  id: string
  isError: boolean
  raw: string
  body: string
}

const NOT_BLANK = /\S/

/**
 * Incremental parser of the Anthropic XML format: text, `<thinking>` blocks,
 * `<function_calls><invoke name><parameter name>` tool calls and `<function_results>` blocks, as
 * chunks arrive. The README lists every rule; in short:
 *
 * - Linear time: only a `<…` that could still become a known tag is held back (at most
 *   {@link MAX_TAG_LENGTH}), and only a possible character reference inside thinking text.
 * - Tags are matched by exact name with optional namespace prefixes, and only where they mean
 *   something: `<invoke>` only inside `<function_calls>`, `<parameter>` only inside `<invoke>`,
 *   nothing but the closing tag inside `<thinking>`. A stray tag is plain text.
 * - Nothing the model writes disappears: text inside `<function_calls>` that is not a call
 *   (a malformed `<invoke name=x>`, prose) comes out as text, and a block without any call comes
 *   back whole as text; each call keeps its verbatim `raw`.
 * - A parameter value runs to the **last** `</parameter>` before the next `<parameter name=…>`
 *   or `</invoke>`, so a value that contains the literal closing tag is never cut.
 * - Thinking text is XML text: character references are decoded (the formatter escapes what
 *   would close the block when rendering).
 */
export class XmlStreamParser implements StreamParser {
  readonly #thinkingTag: string
  readonly #tags: Record<Exclude<Mode, 'call'> | CallPart, TagCandidate[]>
  readonly #calls: XmlCallBuilder
  readonly #acc = new Accumulator()
  readonly #blocks = new BlockCounter()
  readonly #thinking: BlockTextReader
  #carry = ''
  /** Events of the chunk being scanned (taken after each scan). */
  readonly #out = new EventBuffer()
  readonly #target: TagScanTarget = {
    candidates: () => this.#tags[this.#mode === 'call' ? this.#calls.part : this.#mode],
    content: (text) => this.#content(text, this.#out),
    tag: (match, data, start) => this.#tag(match, data.slice(start, match.end), this.#out),
  }
  #mode: Mode = 'text'
  #wrapper: Wrapper = { held: '', seen: 0 }
  #result: OpenResult | undefined

  /** @param options - tools (for coercion), namespaces (default `['antml']`), idPrefix (default `'toolu_xml_'`), thinkingTag (default `'thinking'`). */
  constructor(options: XmlParserOptions = {}) {
    checkOptions(options, 'new XmlStreamParser')
    this.#calls = new XmlCallBuilder(options.tools ?? [], options.idPrefix ?? 'toolu_xml_')
    this.#thinkingTag = options.thinkingTag ?? 'thinking'
    this.#thinking = new BlockTextReader(options.trimThinkingNewlines ?? false)
    const ns = options.namespaces ?? ['antml']
    const open = (local: string, attribute?: string) => ({ local, closing: false, attribute })
    const close = (local: string) => ({ local, closing: true })
    const thinking = this.#thinkingTag
    this.#tags = {
      text: candidates([open(thinking), open('function_calls'), open('function_results')], ns),
      thinking: candidates([close(thinking)], ns),
      calls: candidates([open('invoke', 'name'), close('function_calls')], ns),
      invoke: candidates([open('parameter', 'name'), close('invoke')], ns),
      param: candidates([close('parameter')], ns),
      'param-end': candidates([close('parameter'), open('parameter', 'name'), close('invoke')], ns),
      results: candidates(
        [open('result', 'tool_call_id'), open('error', 'tool_call_id'), close('function_results')],
        ns,
      ),
      result: candidates([close('result')], ns),
      error: candidates([close('error')], ns),
    }
  }

  /** {@inheritDoc StreamParser.processChunk} */
  processChunk(chunk: string): StreamEvent[] {
    checkText(chunk, 'stream chunk')
    this.#acc.add(chunk)
    this.#out.clear()
    this.#carry = scanTags(this.#carry + chunk, this.#target)
    return this.#out.take()
  }

  /** {@inheritDoc StreamParser.push} */
  push(content: string): void {
    this.processChunk(content)
  }

  /** {@inheritDoc StreamParser.flush} */
  flush(): StreamEvent[] {
    const out = this.#out
    out.clear()
    const rest = this.#carry
    this.#carry = ''
    this.#content(rest, out)
    switch (this.#mode) {
      case 'thinking':
        this.#endThinking(out)
        break
      case 'calls':
      case 'results':
        // a block in which no element ever started is not a block: it is what the model wrote
        if (this.#wrapper.seen === 0) this.#text(this.#wrapper.held, out)
        break
      case 'call':
        this.#calls.end('', out, true)
        break
      case 'result':
      case 'error':
        this.#text(this.#result?.raw ?? '', out)
        break
      case 'text':
        break
    }
    this.#mode = 'text'
    this.#result = undefined
    this.#wrapper = { held: '', seen: 0 }
    return out.take()
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
    this.#wrapper = { held: '', seen: 0 }
    this.#calls.reset()
    this.#result = undefined
  }

  /** {@inheritDoc StreamParser.getCurrentBlockType} */
  getCurrentBlockType(): BlockType {
    switch (this.#mode) {
      case 'thinking':
        return 'thinking'
      case 'call':
        return 'tool-call'
      case 'result':
      case 'error':
        return 'tool-result'
      default:
        return 'text'
    }
  }

  /** {@inheritDoc StreamParser.getBlockIndex} */
  getBlockIndex(): number {
    const m = this.#mode
    return this.#blocks.index(m !== 'text' && m !== 'calls' && m !== 'results')
  }

  #text(text: string, out: EventBuffer): void {
    if (text === '') return
    this.#blocks.text()
    out.delta('text-delta', text)
  }

  /** Text between tags, in the current mode. */
  #content(text: string, out: EventBuffer): void {
    if (text === '') return
    switch (this.#mode) {
      case 'text':
        this.#text(text, out)
        return
      case 'thinking': {
        const decoded = this.#thinking.push(text)
        if (decoded !== '') out.delta('thinking-delta', decoded)
        return
      }
      case 'calls':
      case 'results': {
        // whitespace between elements is layout; anything else is what the model said
        const w = this.#wrapper
        if (!NOT_BLANK.test(text)) {
          w.held += text
          return
        }
        this.#text(w.held + text, out)
        w.held = ''
        return
      }
      case 'call':
        this.#calls.text(text)
        return
      case 'result':
      case 'error':
        if (this.#result) {
          this.#result.raw += text
          this.#result.body += text
        }
        return
    }
  }

  #tag(match: TagFound, written: string, out: EventBuffer): void {
    const { tag } = match
    if (tag.local === this.#thinkingTag && (this.#mode === 'text' || this.#mode === 'thinking')) {
      if (tag.closing) {
        this.#endThinking(out)
        return
      }
      this.#mode = 'thinking'
      this.#blocks.open()
      this.#thinking.start()
      out.push({ type: 'thinking-start' })
      return
    }
    switch (tag.local) {
      case 'function_calls':
      case 'function_results':
        if (!tag.closing) {
          this.#mode = tag.local === 'function_calls' ? 'calls' : 'results'
          this.#wrapper = { held: written, seen: 0 }
          return
        }
        if (this.#wrapper.seen === 0) this.#text(this.#wrapper.held + written, out)
        this.#wrapper = { held: '', seen: 0 }
        this.#mode = 'text'
        return
      case 'invoke':
        if (tag.closing) {
          this.#calls.end(written, out, false)
          this.#mode = 'calls'
          return
        }
        this.#wrapper.held = ''
        this.#wrapper.seen++
        this.#blocks.open()
        this.#calls.start(match, written, out)
        this.#mode = this.#calls.open ? 'call' : 'calls'
        return
      case 'parameter':
        this.#calls.parameter(match, written, out)
        return
      case 'result':
      case 'error':
        if (tag.closing) {
          this.#finishResult(written, out)
          return
        }
        this.#wrapper.held = ''
        this.#wrapper.seen++
        this.#blocks.open()
        this.#result = {
          id: unescapeXml(match.value ?? ''),
          isError: tag.local === 'error',
          raw: written,
          body: '',
        }
        this.#mode = tag.local
        if (match.selfClosing) this.#finishResult('', out)
        return
    }
  }

  #finishResult(written: string, out: EventBuffer): void {
    const result = this.#result
    this.#result = undefined
    this.#mode = 'results'
    if (!result) return
    // the renderer writes `\n` + escaped text + `\n` between the tags
    let body = result.body
    if (body.startsWith('\n')) body = body.slice(1)
    if (body.endsWith('\n')) body = body.slice(0, -1)
    const text = unescapeXml(body)
    out.push({
      type: 'tool-result',
      result: {
        type: 'tool_result',
        toolCallId: result.id,
        content: text === '' ? [] : [{ type: 'text', text }],
        isError: result.isError,
      },
      raw: result.raw + written,
    })
  }

  #endThinking(out: EventBuffer): void {
    const rest = this.#thinking.end()
    if (rest !== '') out.delta('thinking-delta', rest)
    out.push({ type: 'thinking-end' })
    this.#mode = 'text'
  }
}
