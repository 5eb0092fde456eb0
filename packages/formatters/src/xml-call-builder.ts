import type { ToolCallBlock, ToolDefinition } from '@contextkit/core'
import { coerceParameter, parameterSchema } from './coerce.js'
import type { EventBuffer } from './parser-state.js'
import type { TagFound } from './tag-scanner.js'
import { unescapeXml } from './xml-escape.js'

/** Where inside an `<invoke>` the text goes. */
export type CallPart = 'invoke' | 'param' | 'param-end'

interface OpenCall {
  id: string
  name: string
  input: Record<string, unknown>
  raw: string
  schema: unknown
}

interface OpenParam {
  name: string
  value: string
  /** The last `</parameter>` seen, and the text after it (both join the value if another comes). */
  closeTag: string
  tail: string
}

/**
 * Builds one `<invoke>` of the XML format as its text arrives: parameters (coerced by the tool's
 * JSON Schema), the verbatim `raw`, and the events. A parameter value runs to the last
 * `</parameter>` before the next `<parameter name=…>` or `</invoke>`: the value is settled only
 * when one of those arrives.
 */
export class XmlCallBuilder {
  readonly #tools: ReadonlyMap<string, ToolDefinition>
  readonly #idPrefix: string
  #counter = 0
  #call: OpenCall | undefined
  #param: OpenParam | undefined
  /** The part of the call the next text belongs to. */
  part: CallPart = 'invoke'

  constructor(tools: readonly ToolDefinition[], idPrefix: string) {
    this.#tools = new Map(tools.map((t) => [t.name, t]))
    this.#idPrefix = idPrefix
  }

  /** Whether a call is open. */
  get open(): boolean {
    return this.#call !== undefined
  }

  /** An `<invoke name="…">` (or self-closing `<invoke name="…"/>`) was read. */
  start(match: TagFound, written: string, out: EventBuffer): void {
    this.#counter++
    const id = `${this.#idPrefix}${this.#counter}`
    const name = unescapeXml(match.value ?? '')
    this.#call = { id, name, input: {}, raw: written, schema: this.#tools.get(name)?.inputSchema }
    this.#param = undefined
    this.part = 'invoke'
    out.push({ type: 'tool-call-start', id, name })
    if (match.selfClosing) this.end('', out, false)
  }

  /** Text inside the call. */
  text(text: string): void {
    const call = this.#call
    if (!call) return
    call.raw += text
    const param = this.#param
    if (!param) return
    if (this.part === 'param') param.value += text
    else if (this.part === 'param-end') param.tail += text
  }

  /** A `<parameter name="…">`, `<parameter name="…"/>` or `</parameter>` inside the call. */
  parameter(match: TagFound, written: string, out: EventBuffer): void {
    const call = this.#call
    if (!call) return
    call.raw += written
    if (match.tag.closing) {
      const param = this.#param
      if (!param) return
      // a later `</parameter>` before the next parameter or `</invoke>` moves the value's end
      if (this.part === 'param-end') param.value += param.closeTag + param.tail
      param.closeTag = written
      param.tail = ''
      this.part = 'param-end'
      return
    }
    if (this.part === 'param-end') this.#finishParam(out)
    this.#param = { name: unescapeXml(match.value ?? ''), value: '', closeTag: '', tail: '' }
    this.part = 'param'
    if (match.selfClosing) this.#finishParam(out)
  }

  /**
   * `</invoke>` (`written`) or the end of the stream (`incomplete`): settle a parameter whose
   * closing tag was seen, and emit the call. A parameter still open at the end is left out.
   */
  end(written: string, out: EventBuffer, incomplete: boolean): void {
    const call = this.#call
    if (!call) return
    if (this.part === 'param-end') this.#finishParam(out)
    call.raw += written
    this.#call = undefined
    this.#param = undefined
    this.part = 'invoke'
    const block: ToolCallBlock = {
      type: 'tool_call',
      id: call.id,
      name: call.name,
      input: { ...call.input },
      raw: call.raw,
    }
    out.push(
      incomplete
        ? { type: 'tool-call-end', call: block, incomplete: true }
        : { type: 'tool-call-end', call: block },
    )
  }

  /** Forget the open call and restart the id counter. */
  reset(): void {
    this.#counter = 0
    this.#call = undefined
    this.#param = undefined
    this.part = 'invoke'
  }

  #finishParam(out: EventBuffer): void {
    const call = this.#call
    const param = this.#param
    this.#param = undefined
    this.part = 'invoke'
    if (!call || !param) return
    const value = coerceParameter(
      unescapeXml(param.value),
      parameterSchema(call.schema, param.name),
    )
    // a parameter called `__proto__` is data, not the object's prototype (defineProperty is
    // kept for that one name: it is slower than an assignment)
    if (param.name === '__proto__')
      Object.defineProperty(call.input, param.name, {
        value,
        enumerable: true,
        writable: true,
        configurable: true,
      })
    else call.input[param.name] = value
    out.push({ type: 'tool-call-parameter', id: call.id, name: param.name, value })
  }
}
