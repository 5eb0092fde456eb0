import type { ToolCallBlock } from '@contextkit/core'
import { exceedsJsonDepth } from '@contextkit/core'
import { parseJsonLossless } from './lossless-json.js'
import { checkOptions } from './option-keys.js'
import { Accumulator, BlockCounter, pushDelta } from './parser-state.js'
import type { BlockType, ParserOptions, StreamEvent, StreamParser } from './types.js'
import { checkText } from './validate.js'

/** A model family's native way of writing tool calls, as a parser needs it. */
export interface NativeCallSyntax {
  /**
   * Texts that open the calls of a reply (Mistral's `[TOOL_CALLS]`, Llama's `<|python_tag|>`).
   * Everything from one of them to the end of the reply is the call part.
   */
  markers: readonly string[]
  /** Whether a reply whose first non-space character is `{` or `[` is a call part too (Llama 3.1). */
  bareJson: boolean
  /** The calls of a call part (marker removed), or `undefined` when it is not one. */
  decode(
    body: string,
  ): Array<{ name: string; input: Record<string, unknown>; id?: string }> | undefined
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/**
 * `{ name, <argsKey>, id? }` objects (one, or a list) from JSON text, or `undefined` (also when
 * an input nests deeper than core's `MAX_JSON_DEPTH`).
 */
export function decodeJsonCalls(
  body: string,
  argsKeys: readonly string[],
): Array<{ name: string; input: Record<string, unknown>; id?: string }> | undefined {
  let parsed: unknown
  try {
    parsed = parseJsonLossless(body.trim())
  } catch {
    return undefined
  }
  const list = Array.isArray(parsed) ? parsed : [parsed]
  if (list.length === 0) return undefined
  const calls: Array<{ name: string; input: Record<string, unknown>; id?: string }> = []
  for (const item of list) {
    if (!isObject(item) || typeof item.name !== 'string' || item.name === '') return undefined
    const key = argsKeys.find((k) => k in item)
    let args: unknown = key === undefined ? {} : item[key]
    if (typeof args === 'string') {
      try {
        args = parseJsonLossless(args)
      } catch {
        return undefined
      }
    }
    // deeper than any builder writes: not a call (so what is parsed can always be sent back)
    if (!isObject(args) || exceedsJsonDepth(args)) return undefined
    calls.push({
      name: item.name,
      input: args,
      ...(typeof item.id === 'string' && item.id !== '' ? { id: item.id } : {}),
    })
  }
  return calls
}

/** Options of {@link NativeToolStreamParser}. */
export interface NativeToolParserOptions extends ParserOptions {
  /** Prefix of generated tool call ids (when the model writes none), then a counter. Default `'toolu_native_'`. */
  idPrefix?: string
}

/**
 * Incremental parser of replies in a family's native tool-call syntax (Llama 3.1 JSON, Mistral
 * `[TOOL_CALLS]`): text streams as it comes; from a call marker (or, where the family writes bare
 * JSON, from a reply that starts with `{` or `[`) the rest of the reply is held and decoded when
 * the stream ends — calls with the model's own ids where it writes them (Mistral), else generated
 * ones. A part that does not decode (or whose input nests deeper than core's `MAX_JSON_DEPTH`) is
 * released as text, unchanged. Only a possible marker start
 * is held back between chunks.
 */
export class NativeToolStreamParser implements StreamParser {
  readonly #syntax: NativeCallSyntax
  readonly #idPrefix: string
  readonly #acc = new Accumulator()
  readonly #blocks = new BlockCounter()
  /** Text not yet released: it may be the start of a marker. */
  #pending = ''
  /** The call part (from its marker), once one began. */
  #call: string | undefined
  /** Whether anything but white space was seen yet (bare JSON must start the reply). */
  #started = false
  /** The marker (or the white space before bare JSON) that opened the call part. */
  #opener = ''
  #counter = 0

  constructor(syntax: NativeCallSyntax, options: NativeToolParserOptions = {}) {
    checkOptions(options, 'new NativeToolStreamParser')
    this.#syntax = syntax
    this.#idPrefix = options.idPrefix ?? 'toolu_native_'
  }

  /** {@inheritDoc StreamParser.processChunk} */
  processChunk(chunk: string): StreamEvent[] {
    checkText(chunk, 'stream chunk')
    this.#acc.add(chunk)
    const out: StreamEvent[] = []
    if (this.#call !== undefined) {
      this.#call += chunk
      return out
    }
    this.#scan(this.#pending + chunk, out)
    return out
  }

  /** {@inheritDoc StreamParser.push} */
  push(content: string): void {
    this.processChunk(content)
  }

  /** {@inheritDoc StreamParser.flush} */
  flush(): StreamEvent[] {
    const out: StreamEvent[] = []
    if (this.#call !== undefined) this.#finishCall(this.#call, out)
    else this.#text(this.#pending, out)
    this.#pending = ''
    this.#call = undefined
    return out
  }

  /** {@inheritDoc StreamParser.getAccumulated} */
  getAccumulated(): string {
    return this.#acc.text()
  }

  /** {@inheritDoc StreamParser.reset} */
  reset(): void {
    this.#acc.clear()
    this.#blocks.reset()
    this.#pending = ''
    this.#call = undefined
    this.#started = false
    this.#counter = 0
  }

  /** {@inheritDoc StreamParser.getCurrentBlockType} */
  getCurrentBlockType(): BlockType {
    return this.#call === undefined ? 'text' : 'tool-call'
  }

  /** {@inheritDoc StreamParser.getBlockIndex} */
  getBlockIndex(): number {
    return this.#blocks.index(false)
  }

  #scan(text: string, out: StreamEvent[]): void {
    if (!this.#started) {
      const lead = text.length - text.trimStart().length
      const first = text[lead]
      if (first === undefined) {
        this.#pending = text
        return
      }
      this.#started = true
      if (this.#syntax.bareJson && (first === '{' || first === '[')) {
        this.#openCall(text.slice(lead), text.slice(0, lead), '', out)
        return
      }
    }
    let at = -1
    let marker = ''
    for (const m of this.#syntax.markers) {
      const i = text.indexOf(m)
      if (i >= 0 && (at < 0 || i < at)) {
        at = i
        marker = m
      }
    }
    if (at >= 0) {
      this.#openCall(text.slice(at + marker.length), text.slice(0, at), marker, out)
      return
    }
    const hold = this.#heldTail(text)
    this.#text(text.slice(0, text.length - hold), out)
    this.#pending = text.slice(text.length - hold)
  }

  /** Length of the longest end of `text` that could begin a marker. */
  #heldTail(text: string): number {
    let hold = 0
    for (const m of this.#syntax.markers) {
      for (let n = Math.min(m.length - 1, text.length); n > hold; n--) {
        if (text.endsWith(m.slice(0, n))) {
          hold = n
          break
        }
      }
    }
    return hold
  }

  #openCall(body: string, before: string, marker: string, out: StreamEvent[]): void {
    // white space between the text and the calls belongs to neither
    const text = before.trimEnd()
    this.#text(text, out)
    this.#opener = before.slice(text.length) + marker
    this.#pending = ''
    this.#call = body
  }

  #text(text: string, out: StreamEvent[]): void {
    if (text === '') return
    this.#blocks.text()
    pushDelta(out, 'text-delta', text)
  }

  #finishCall(body: string, out: StreamEvent[]): void {
    const calls = this.#syntax.decode(body)
    if (!calls) {
      // not calls after all: the text as written, marker included
      this.#text(this.#opener + body, out)
      return
    }
    for (const c of calls) {
      this.#counter++
      const call: ToolCallBlock = {
        type: 'tool_call',
        id: c.id ?? `${this.#idPrefix}${this.#counter}`,
        name: c.name,
        input: c.input,
      }
      this.#blocks.open()
      out.push({ type: 'tool-call-start', id: call.id, name: call.name })
      for (const [name, value] of Object.entries(call.input)) {
        out.push({ type: 'tool-call-parameter', id: call.id, name, value })
      }
      out.push({ type: 'tool-call-end', call })
    }
  }
}
