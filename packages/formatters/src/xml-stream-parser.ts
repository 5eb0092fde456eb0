import type { ToolCallBlock, ToolDefinition } from '@contextkit/core'
import { coerceParameter, parameterSchema } from './coerce.js'
import { candidates, scanTags, type TagCandidate, type TagScanTarget } from './tag-scanner.js'
import type { BlockType, ParserOptions, StreamEvent, StreamParser } from './types.js'
import { checkText } from './validate.js'
import { unescapeXml } from './xml-escape.js'

/** Options of {@link IncrementalXmlParser}. */
export interface XmlParserOptions extends ParserOptions {
  /**
   * Namespace prefixes whose tags behave like the plain ones (`<invoke>` = `<invoke>`).
   * Default `['antml']`.
   */
  namespaces?: readonly string[]
  /** Prefix of generated tool call ids, followed by a per-parser counter. Default `'toolu_xml_'`. */
  idPrefix?: string
}

type Mode = 'text' | 'thinking' | 'calls' | 'invoke' | 'param'

interface OpenCall {
  id: string
  name: string
  input: Record<string, unknown>
  raw: string
  schema: unknown
}

/**
 * Incremental parser of the Anthropic XML format: text, `<thinking>` blocks and
 * `<function_calls><invoke name><parameter name>` tool calls, as chunks arrive.
 *
 * - Linear time: only the characters that could still start a known tag are held back
 *   (at most {@link MAX_TAG_LENGTH}); the accumulated text is never rescanned.
 * - Tags are matched by exact name (`set_thinking` opens nothing) with optional namespace
 *   prefixes; `<invoke>`/`<parameter>` mean something only inside `<function_calls>`, and
 *   inside `<thinking>` only `</thinking>` does. A stray closing tag is plain text.
 * - A parameter value is everything up to the first `</parameter>` (any namespace variant),
 *   XML-unescaped, untrimmed for strings: a value that must contain that closing tag has to be
 *   escaped (`&lt;/parameter>`), which the formatters always do when rendering.
 * - Whitespace or other text between `<invoke>`s inside `<function_calls>` is not emitted;
 *   inside an `<invoke>` it is kept in the call's verbatim `raw`.
 */
export class IncrementalXmlParser implements StreamParser {
  readonly #tools: Map<string, ToolDefinition>
  readonly #idPrefix: string
  readonly #tags: Record<Mode, TagCandidate[]>
  #carry = ''
  /** Events of the chunk being scanned (set before each scan). */
  #out: StreamEvent[] = []
  readonly #target: TagScanTarget = {
    candidates: () => this.#tags[this.#mode],
    content: (text) => this.#content(text, this.#out),
    tag: (tag, data, start, end, name) => this.#tag(tag, data, start, end, name, this.#out),
  }
  #pieces: string[] = []
  #mode: Mode = 'text'
  #call: OpenCall | undefined
  #param: { name: string; value: string } | undefined
  #counter = 0

  /** @param options tools (for coercion), namespaces (default `['antml']`), idPrefix (default `'toolu_xml_'`). */
  constructor(options: XmlParserOptions = {}) {
    this.#tools = new Map((options.tools ?? []).map((t) => [t.name, t]))
    this.#idPrefix = options.idPrefix ?? 'toolu_xml_'
    const ns = options.namespaces ?? ['antml']
    this.#tags = {
      text: candidates(
        [
          { local: 'thinking', closing: false },
          { local: 'function_calls', closing: false },
        ],
        ns,
      ),
      thinking: candidates([{ local: 'thinking', closing: true }], ns),
      calls: candidates(
        [
          { local: 'invoke', closing: false, named: true },
          { local: 'function_calls', closing: true },
        ],
        ns,
      ),
      invoke: candidates(
        [
          { local: 'parameter', closing: false, named: true },
          { local: 'invoke', closing: true },
        ],
        ns,
      ),
      param: candidates([{ local: 'parameter', closing: true }], ns),
    }
  }

  processChunk(chunk: string): StreamEvent[] {
    checkText(chunk, 'stream chunk')
    const out: StreamEvent[] = []
    if (chunk !== '') this.#pieces.push(chunk)
    this.#scan(chunk, out)
    return out
  }

  push(content: string): void {
    this.processChunk(content)
  }

  flush(): StreamEvent[] {
    const out: StreamEvent[] = []
    const rest = this.#carry
    this.#carry = ''
    this.#content(rest, out)
    if (this.#mode === 'thinking') out.push({ type: 'thinking-end' })
    if (this.#call && (this.#mode === 'invoke' || this.#mode === 'param')) {
      out.push({ type: 'tool-call-end', call: this.#block(this.#call), incomplete: true })
    }
    this.#mode = 'text'
    this.#call = undefined
    this.#param = undefined
    return out
  }

  getAccumulated(): string {
    if (this.#pieces.length > 1) this.#pieces = [this.#pieces.join('')]
    return this.#pieces[0] ?? ''
  }

  reset(): void {
    this.#carry = ''
    this.#pieces = []
    this.#mode = 'text'
    this.#call = undefined
    this.#param = undefined
    this.#counter = 0
  }

  getCurrentBlockType(): BlockType {
    if (this.#mode === 'thinking') return 'thinking'
    if (this.#mode === 'invoke' || this.#mode === 'param') return 'tool_call'
    return 'text'
  }

  #scan(chunk: string, out: StreamEvent[]): void {
    this.#out = out
    this.#carry = scanTags(this.#carry + chunk, this.#target)
  }

  /** Text between tags, in the current mode. */
  #content(text: string, out: StreamEvent[]): void {
    if (text === '') return
    switch (this.#mode) {
      case 'text':
        pushDelta(out, 'text-delta', text)
        return
      case 'thinking':
        pushDelta(out, 'thinking-delta', text)
        return
      case 'calls':
        return
      case 'invoke':
        if (this.#call) this.#call.raw += text
        return
      case 'param':
        if (this.#call) this.#call.raw += text
        if (this.#param) this.#param.value += text
        return
    }
  }

  #tag(
    tag: TagCandidate,
    data: string,
    start: number,
    end: number,
    name: string | undefined,
    out: StreamEvent[],
  ): void {
    switch (tag.local) {
      case 'thinking':
        this.#mode = tag.closing ? 'text' : 'thinking'
        out.push({ type: tag.closing ? 'thinking-end' : 'thinking-start' })
        return
      case 'function_calls':
        this.#mode = tag.closing ? 'text' : 'calls'
        return
      case 'invoke':
        if (tag.closing) {
          const call = this.#call
          this.#mode = 'calls'
          this.#call = undefined
          if (call) {
            call.raw += data.slice(start, end)
            out.push({ type: 'tool-call-end', call: this.#block(call) })
          }
          return
        }
        this.#startCall(unescapeXml(name ?? ''), data.slice(start, end), out)
        return
      case 'parameter': {
        const call = this.#call
        if (!call) return
        call.raw += data.slice(start, end)
        if (!tag.closing) {
          this.#mode = 'param'
          this.#param = { name: unescapeXml(name ?? ''), value: '' }
          return
        }
        this.#mode = 'invoke'
        const param = this.#param
        this.#param = undefined
        if (!param) return
        const value = coerceParameter(
          unescapeXml(param.value),
          parameterSchema(call.schema, param.name),
        )
        // defineProperty: a parameter called `__proto__` is data, not the object's prototype
        Object.defineProperty(call.input, param.name, {
          value,
          enumerable: true,
          writable: true,
          configurable: true,
        })
        out.push({ type: 'tool-call-parameter', id: call.id, name: param.name, value })
        return
      }
    }
  }

  #startCall(name: string, written: string, out: StreamEvent[]): void {
    this.#counter++
    const id = `${this.#idPrefix}${this.#counter}`
    this.#call = {
      id,
      name,
      input: {},
      raw: written,
      schema: this.#tools.get(name)?.inputSchema,
    }
    this.#mode = 'invoke'
    out.push({ type: 'tool-call-start', id, name })
  }

  #block(call: OpenCall): ToolCallBlock {
    return {
      type: 'tool_call',
      id: call.id,
      name: call.name,
      input: { ...call.input },
      raw: call.raw,
    }
  }
}

/** Append a delta, merging with the previous event of the same type. */
export function pushDelta(
  out: StreamEvent[],
  type: 'text-delta' | 'thinking-delta',
  text: string,
): void {
  const last = out[out.length - 1]
  if (last && last.type === type) last.text += text
  else out.push({ type, text })
}
