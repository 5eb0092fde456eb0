import type {
  ContentBlock,
  ImageBlock,
  ToolCallBlock,
  ToolDefinition,
  ToolResultBlock,
} from '@contextkit/core'
import { assertArray, assertString } from '@contextkit/core'
import { stringifyJson } from './lossless-json.js'
import { checkOptions } from './option-keys.js'
import { checkInputDepth } from './validate.js'
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
  switch (typeof value) {
    case 'string':
      return escapeXml(value)
    case 'undefined':
      return ''
    case 'boolean':
      return value ? 'true' : 'false'
    case 'number':
      // what JSON writes (no escaping needed); integers beyond 2^53 take the exact path below
      if (!Number.isFinite(value)) return 'null'
      if (Number.isSafeInteger(value) || !Number.isInteger(value)) return JSON.stringify(value)
  }
  return escapeXml(stringifyJson(value))
}

/** Render one call as `<invoke name="…">` with one `<parameter>` per input key, in key order. */
export function renderInvoke(call: Pick<ToolCallBlock, 'name' | 'input'>): string {
  let out = `<invoke name="${escapeXmlAttribute(call.name)}">\n`
  const input = call.input
  for (const key of Object.keys(input)) {
    out += `<parameter name="${escapeXmlAttribute(key)}">${renderParameterValue(input[key])}</parameter>\n`
  }
  return `${out}</invoke>`
}

/**
 * Render calls as one `<function_calls>` block. A call that carries a verbatim `raw` (it was
 * parsed from XML) is replayed exactly as written.
 */
export function renderXmlToolCalls(calls: readonly ToolCallBlock[]): string {
  assertArray(calls, 'renderXmlToolCalls', 'calls')
  calls.forEach((c, i) => {
    if (c.raw === undefined) checkInputDepth(c.input, 'renderXmlToolCalls calls', `${i}.input`)
  })
  return xmlToolCallsText(calls, 0, calls.length)
}

/**
 * `renderXmlToolCalls` of the tool calls `blocks[from..to)` (all of type `tool_call`), written
 * in one pass without copying the run out of its message.
 */
export function xmlToolCallsText(
  blocks: readonly ContentBlock[],
  from: number,
  to: number,
): string {
  let out = '<function_calls>'
  for (let i = from; i < to; i++) {
    const call = blocks[i] as ToolCallBlock
    out += `\n${call.raw ?? renderInvoke(call)}`
  }
  return `${out}\n</function_calls>`
}

/**
 * Tool definitions as an XML `<functions>` block (JSON Schema inside, escaped). Each definition
 * is rendered once per object and reused while its `name`, `description` and `inputSchema` are
 * the same values; an `inputSchema` edited in place is not seen (give a new object).
 */
export function renderXmlToolDefinitions(tools: readonly ToolDefinition[]): string {
  assertArray(tools, 'renderXmlToolDefinitions', 'tools')
  const hit = renderedLists.get(tools)
  if (hit !== undefined && sameTexts(tools, hit.texts)) return hit.text
  const texts = tools.map(renderDefinition)
  const text = `<functions>\n${texts.join('\n')}\n</functions>`
  renderedLists.set(tools, { texts, text })
  return text
}

/** A definition as rendered, with the fields it was rendered from. */
interface RenderedDefinition {
  name: string
  description: string
  inputSchema: unknown
  text: string
}

/**
 * Rendered definitions by object, and rendered lists by array: an agent sends the same tools
 * with every request. A definition is rendered anew when any of its three fields is another
 * value than it was (a changed name or description, a new `inputSchema` object); a list, when
 * any of its definitions renders differently or their number changes. An `inputSchema` edited
 * in place keeps its rendering: give a changed schema as a new object.
 */
const renderedDefinitions = new WeakMap<ToolDefinition, RenderedDefinition>()
const renderedLists = new WeakMap<readonly ToolDefinition[], { texts: string[]; text: string }>()

/** Whether every definition of `tools` renders as `texts` says (mostly one pointer comparison each). */
function sameTexts(tools: readonly ToolDefinition[], texts: readonly string[]): boolean {
  if (tools.length !== texts.length) return false
  for (let i = 0; i < tools.length; i++) if (renderDefinition(tools[i]!) !== texts[i]) return false
  return true
}

function renderDefinition(t: ToolDefinition): string {
  const hit = renderedDefinitions.get(t)
  if (
    hit !== undefined &&
    hit.name === t.name &&
    hit.description === t.description &&
    hit.inputSchema === t.inputSchema
  )
    return hit.text
  const text = `<function>\n<name>${escapeXml(t.name)}</name>\n<description>${escapeXml(t.description)}</description>\n<parameters>${escapeXml(stringifyJson(t.inputSchema))}</parameters>\n</function>`
  renderedDefinitions.set(t, {
    name: t.name,
    description: t.description,
    inputSchema: t.inputSchema,
    text,
  })
  return text
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
 * The `<function_results>` block of the tool results `blocks[from..to)` (all of type
 * `tool_result`) as one string, exactly as `xmlToolResultSegments` writes it; `undefined` when
 * any result holds an image (the caller splits or replaces those).
 */
export function xmlToolResultsText(
  blocks: readonly ContentBlock[],
  from: number,
  to: number,
): string | undefined {
  let out = '<function_results>\n'
  for (let i = from; i < to; i++) {
    const r = blocks[i] as ToolResultBlock
    const tag = r.isError ? 'error' : 'result'
    out += `${i > from ? '\n' : ''}<${tag} tool_call_id="${escapeXmlAttribute(r.toolCallId)}">\n`
    const content = r.content
    for (let j = 0; j < content.length; j++) {
      const part = content[j]!
      if (part.type !== 'text') return undefined
      out += j > 0 ? `\n${escapeXml(part.text)}` : escapeXml(part.text)
    }
    out += `\n</${tag}>`
  }
  return `${out}\n</function_results>`
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
  checkOptions(options, 'new XmlStreamParser', 'parseXmlToolCalls')
  const parser = new XmlStreamParser(options)
  const calls: ToolCallBlock[] = []
  for (const e of [...parser.processChunk(text), ...parser.flush()]) {
    if (e.type === 'tool-call-end' && !e.incomplete) calls.push(e.call)
  }
  return calls
}
