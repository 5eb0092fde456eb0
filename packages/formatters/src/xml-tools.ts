import type { ImageBlock, ToolCallBlock, ToolDefinition, ToolResultBlock } from '@contextkit/core'
import { assertArray, assertOptions, assertString } from '@contextkit/core'
import { stringifyJson } from './lossless-json.js'
import { escapeXml, escapeXmlAttribute } from './xml-escape.js'
import { type XmlParserOptions, XmlStreamParser } from './xml-stream-parser.js'

/** The instruction put before XML tool definitions in a system prompt. */
export const XML_TOOL_PREAMBLE =
  'You can call the functions below. To call them, write a <function_calls> block containing one <invoke name="..."> per call, with one <parameter name="...">value</parameter> per argument, then stop; the results come back in a <function_results> block.'

/**
 * Render one parameter value as XML element text: strings escaped (`&`, `<`, `>`), so a value
 * can never close its own element; bigints as digits; anything else as JSON, escaped.
 */
export function renderParameterValue(value: unknown): string {
  if (typeof value === 'string') return escapeXml(value)
  if (value === undefined) return ''
  return escapeXml(stringifyJson(value))
}

/** Render one call as `<invoke name="…">` with one `<parameter>` per input key, in key order. */
export function renderInvoke(call: Pick<ToolCallBlock, 'name' | 'input'>): string {
  let out = `<invoke name="${escapeXmlAttribute(call.name)}">\n`
  for (const [key, value] of Object.entries(call.input)) {
    out += `<parameter name="${escapeXmlAttribute(key)}">${renderParameterValue(value)}</parameter>\n`
  }
  return `${out}</invoke>`
}

/**
 * Render calls as one `<function_calls>` block. A call that carries a verbatim `raw` (it was
 * parsed from XML) is replayed exactly as written.
 */
export function renderXmlToolCalls(calls: readonly ToolCallBlock[]): string {
  assertArray(calls, 'renderXmlToolCalls', 'calls')
  const body = calls.map((c) => c.raw ?? renderInvoke(c)).join('\n')
  return `<function_calls>\n${body}\n</function_calls>`
}

/** Tool definitions as an XML `<functions>` block (JSON Schema inside, escaped). */
export function renderXmlToolDefinitions(tools: readonly ToolDefinition[]): string {
  assertArray(tools, 'renderXmlToolDefinitions', 'tools')
  const items = tools.map(
    (t) =>
      `<function>\n<name>${escapeXml(t.name)}</name>\n<description>${escapeXml(t.description)}</description>\n<parameters>${escapeXml(stringifyJson(t.inputSchema))}</parameters>\n</function>`,
  )
  return `<functions>\n${items.join('\n')}\n</functions>`
}

/**
 * A `<function_results>` block as text pieces with the images between them, in order: adjacent
 * text is merged, so a result without images is one string. One `<result>` (or `<error>` when
 * `isError`) per result, naming the call id; the parts of a result are separated by line breaks
 * and their text is escaped.
 */
export function xmlToolResultSegments(
  results: readonly ToolResultBlock[],
): Array<string | ImageBlock> {
  const out: Array<string | ImageBlock> = []
  const text = (t: string): void => {
    const last = out[out.length - 1]
    if (typeof last === 'string') out[out.length - 1] = last + t
    else out.push(t)
  }
  text('<function_results>\n')
  results.forEach((r, i) => {
    const tag = r.isError ? 'error' : 'result'
    text(`${i > 0 ? '\n' : ''}<${tag} tool_call_id="${escapeXmlAttribute(r.toolCallId)}">\n`)
    r.content.forEach((part, j) => {
      if (j > 0) text('\n')
      if (part.type === 'text') text(escapeXml(part.text))
      else out.push(part)
    })
    text(`\n</${tag}>`)
  })
  text('\n</function_results>')
  return out
}

/**
 * Tool results as a `<function_results>` block (see `xmlToolResultSegments`). An image
 * cannot be written in text: it appears as `[image]` here; formatters replace or split images
 * out first (see `unsupportedMedia`).
 */
export function renderXmlToolResults(results: readonly ToolResultBlock[]): string {
  assertArray(results, 'renderXmlToolResults', 'results')
  return xmlToolResultSegments(results)
    .map((s) => (typeof s === 'string' ? s : '[image]'))
    .join('')
}

/** The complete tool calls of a whole text, in document order (the stream parser, run once). */
export function parseXmlToolCalls(text: string, options: XmlParserOptions = {}): ToolCallBlock[] {
  assertString(text, 'parseXmlToolCalls', 'text')
  assertOptions(options, 'parseXmlToolCalls')
  const parser = new XmlStreamParser(options)
  const calls: ToolCallBlock[] = []
  for (const e of [...parser.processChunk(text), ...parser.flush()]) {
    if (e.type === 'tool-call-end' && !e.incomplete) calls.push(e.call)
  }
  return calls
}
