/** Prompt-safe rendering of {@link ContextMetadata} as a short hint for the model. */
import { assertString, PROMPT_UNSAFE_CHARS, parseWith } from '@contextkit/core'
import { ContextMetadataSchema } from './metadata-schema.js'
import { HintOptionsSchema } from './options.js'
import { formatCount, truncate, wellFormed } from './text-utils.js'
import type { ContextFormat, ContextMetadata, ElementKind, JsonMap } from './types.js'

export { formatCount }

/** Options of {@link formatContextHint}. */
export interface HintOptions {
  /**
   * Where the model finds the context, as the hint's first line says it: `'__vars.context'`
   * (the default), `'file data/orders.ndjson'`, … `null` says nothing about where
   * (`[Context available]`). The `contextMetadata` middleware sets it from where it read the
   * context.
   */
  contextRef?: string | null
  /**
   * `'block'`: multi-line (Source/Format/Size/…); `'inline'`: one line that still lists the
   * fields and the sample; `'brief'`: one line with the counts only; `'auto'`: block when the
   * metadata has a `fileName`, inline otherwise. Default `'auto'`.
   */
  style?: 'auto' | 'block' | 'inline' | 'brief'
  /** At most this many field names are listed (the rest as `… (+N more)`). Default `30`. */
  maxFields?: number
  /** Each field name is cut to this many characters. Default `64`. */
  maxFieldChars?: number
  /** The sample record is cut to this many characters (before quoting). Default `200`. */
  sampleChars?: number
  /** The file name is cut to this many characters. Default `120`. */
  maxNameChars?: number
}

/** Defaults of {@link HintOptions}. */
export const HINT_DEFAULTS = {
  contextRef: '__vars.context',
  style: 'auto',
  maxFields: 30,
  maxFieldChars: 64,
  sampleChars: 200,
  maxNameChars: 120,
} as const

interface Resolved {
  ref: string | undefined
  style: 'auto' | 'block' | 'inline' | 'brief'
  maxFields: number
  maxFieldChars: number
  sampleChars: number
  maxNameChars: number
}

const FORMAT_LABELS: Record<ContextFormat, string> = {
  ndjson: 'NDJSON (newline-delimited JSON)',
  json: 'JSON object',
  'json-array': 'JSON array',
  csv: 'CSV',
  tsv: 'TSV (tab-separated values)',
  'plain-text': 'Plain text',
  markdown: 'Markdown',
  yaml: 'YAML',
  xml: 'XML',
  html: 'HTML',
  unknown: 'Unknown',
}

const SHORT_LABELS: Record<ContextFormat, string> = {
  ...FORMAT_LABELS,
  ndjson: 'NDJSON',
  tsv: 'TSV',
}

const ELEMENT_WORDS: Record<ElementKind, [string, string]> = {
  objects: ['record', 'records'],
  arrays: ['array', 'arrays'],
  numbers: ['number', 'numbers'],
  strings: ['string', 'strings'],
  booleans: ['boolean', 'booleans'],
  nulls: ['null', 'nulls'],
  mixed: ['value of mixed kinds', 'values of mixed kinds'],
  none: ['element', 'elements'],
}

/** Characters that must not reach a prompt raw (core's `PROMPT_UNSAFE_CHARS`). */
const UNSAFE = new RegExp(PROMPT_UNSAFE_CHARS.source, 'g')
/** Those, and backticks, escaped inside a quoted value. */
const QUOTED_UNSAFE = new RegExp(`${PROMPT_UNSAFE_CHARS.source.slice(0, -1)}\`]`, 'g')

/**
 * Make a string safe to put on one line of a prompt: line breaks, tabs and other control or
 * separator characters become spaces, backticks become `'`, lone surrogates U+FFFD; whitespace
 * runs collapse; the result is cut to `max` characters.
 */
export function sanitizeForPrompt(text: string, max: number): string {
  assertString(text, 'sanitizeForPrompt', 'text')
  const clean = wellFormed(String(text))
    .replace(UNSAFE, ' ')
    .replace(/`/g, "'")
    .replace(/ {2,}/g, ' ')
    .trim()
  return truncate(clean, max)
}

/**
 * `text` as a JSON string literal that is safe on one prompt line: quotes, backslashes and
 * controls escaped by JSON, and also separators, bidi and zero-width characters and backticks
 * (as `\uXXXX`), so the exact text can be read back with `JSON.parse`.
 */
export function quoteForPrompt(text: string): string {
  assertString(text, 'quoteForPrompt', 'text')
  return JSON.stringify(wellFormed(text)).replace(
    QUOTED_UNSAFE,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  )
}

function plural(n: number, one: string, many: string): string {
  return `${formatCount(n)} ${n === 1 ? one : many}`
}

function quotedList(items: readonly string[], truncated: boolean, o: Resolved): string {
  const shown = items.slice(0, o.maxFields).map((f) => quoteForPrompt(truncate(f, o.maxFieldChars)))
  const more = items.length - shown.length
  let text = shown.join(', ')
  if (more > 0) text += `, … (+${formatCount(more)} more)`
  else if (truncated) text += ', …'
  return text
}

const NOT_ONE_LINE =
  /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200b-\u200f\u202a-\u202e\u2066-\u2069`]/

/**
 * The sample, marked as verbatim data: as the file has it when it fits on one line safely,
 * else JSON-quoted (line breaks, controls, bidi characters, backticks escaped). Cut to about
 * `sampleChars`; a cut says so.
 */
function sampleText(sample: string, o: Resolved): string {
  let text = sample
  let cut = false
  if (text.endsWith('…')) {
    text = text.slice(0, -1)
    cut = true
  }
  if (text.length > o.sampleChars) {
    text = truncate(text, o.sampleChars).slice(0, -1)
    cut = true
  }
  const well = wellFormed(text)
  const quote = well !== text || NOT_ONE_LINE.test(text)
  let shown = quote ? quoteForPrompt(text) : text
  // Escapes can make the quoted form longer; keep it within twice the budget.
  while (shown.length > 2 * o.sampleChars + 2 && text.length > 0) {
    text = truncate(text, Math.floor(text.length * 0.75)).slice(0, -1)
    shown = quoteForPrompt(text)
    cut = true
  }
  const notes = ['verbatim data']
  if (quote) notes.push('JSON-quoted')
  if (cut) notes.push(`first ${formatCount(text.length)} chars`)
  return `${notes.join(', ')}): ${shown}${cut && !quote ? '…' : ''}`
}

function resolve(options: HintOptions | undefined): Resolved {
  const o = parseWith(HintOptionsSchema, options ?? {}, 'formatContextHint options')
  const ref =
    o.contextRef === null
      ? undefined
      : sanitizeForPrompt(o.contextRef ?? HINT_DEFAULTS.contextRef, 200) || HINT_DEFAULTS.contextRef
  return {
    ref,
    style: o.style ?? 'auto',
    maxFields: o.maxFields ?? HINT_DEFAULTS.maxFields,
    maxFieldChars: o.maxFieldChars ?? HINT_DEFAULTS.maxFieldChars,
    sampleChars: o.sampleChars ?? HINT_DEFAULTS.sampleChars,
    maxNameChars: o.maxNameChars ?? HINT_DEFAULTS.maxNameChars,
  }
}

function header(o: Resolved): string {
  return o.ref === undefined ? '[Context available' : `[Context available in ${o.ref}`
}

function mapLine(map: JsonMap, o: Resolved): string {
  const where =
    map.key === undefined ? 'Map' : `Map ${quoteForPrompt(truncate(map.key, o.maxFieldChars))}`
  let line = `${where}: ${plural(map.entries, 'entry', 'entries')} keyed by id (${quotedList(map.keyExamples, map.entries > map.keyExamples.length, o)})`
  if (map.valueFields && map.valueFields.length > 0) {
    line += `; value fields: ${quotedList(map.valueFields, false, o)}`
  } else if (map.values !== 'mixed' && map.values !== 'none') {
    line += `; values: ${ELEMENT_WORDS[map.values][1]}`
  }
  return line
}

/** The format the details (fields, delimiter, root) describe: the content's. */
function contentOf(meta: ContextMetadata): ContextFormat {
  return meta.contentFormat ?? meta.format
}

/** A format's label with what its details add: the root element, the delimiter. */
function labelWithDetails(format: ContextFormat, meta: ContextMetadata, o: Resolved): string {
  let label = FORMAT_LABELS[format] ?? 'Unknown'
  if ((format === 'xml' || format === 'html') && meta.rootElement) {
    label += ` (root <${sanitizeForPrompt(meta.rootElement, o.maxFieldChars)}>)`
  }
  if ((format === 'csv' || format === 'tsv') && meta.delimiter && meta.delimiter !== '\t') {
    label += ` (delimiter ${quoteForPrompt(meta.delimiter)}${meta.hasHeader === false ? ', no header' : ''})`
  } else if (
    (format === 'tsv' || (format === 'csv' && meta.delimiter === '\t')) &&
    meta.hasHeader === false
  ) {
    label += ' (no header)'
  } else if (format === 'csv' && meta.delimiter === '\t') label += ' (delimiter tab)'
  return label
}

/**
 * The `Format:` line: the reported format, then what the content reads as when that differs
 * (`Plain text, structured: CSV`; `XML by name; the content reads as NDJSON`).
 */
function formatLine(meta: ContextMetadata, o: Resolved): string {
  const content = meta.contentFormat
  if (content === undefined) {
    const label = labelWithDetails(meta.format, meta, o)
    return meta.textKind === 'structured' ? `${label}, structured (code or records)` : label
  }
  const inner = labelWithDetails(content, meta, o)
  if (meta.format === 'plain-text' || meta.format === 'markdown') {
    const kind = meta.textKind === 'prose' ? 'prose' : 'structured'
    return `${FORMAT_LABELS[meta.format]}, ${kind}: ${inner}`
  }
  if (meta.format === 'unknown') return `Unknown (the content reads as ${inner})`
  return `${FORMAT_LABELS[meta.format] ?? 'Unknown'} by name; the content reads as ${inner}`
}

/** One-line forms: counts, then (unless brief) fields and the sample. */
function inlineHint(meta: ContextMetadata, o: Resolved, brief: boolean): string {
  const parts = [plural(meta.chars, 'char', 'chars'), plural(meta.lines, 'line', 'lines')]
  if (meta.recordCount !== undefined) parts.push(plural(meta.recordCount, 'record', 'records'))
  let detected = SHORT_LABELS[meta.format] ?? 'Unknown'
  if (meta.contentFormat) detected += ` (content: ${SHORT_LABELS[meta.contentFormat] ?? 'Unknown'})`
  else if (meta.textKind === 'structured') detected += ' (structured)'
  parts.push(`detected: ${detected}`)
  let text = parts.join(', ')
  if (!brief) {
    if (meta.fields && meta.fields.length > 0) {
      const label =
        contentOf(meta) === 'json' && !meta.maps?.some((m) => m.key === undefined)
          ? 'keys'
          : 'fields'
      text += `; ${label}: ${quotedList(meta.fields, meta.fieldsTruncated === true, o)}`
    }
    if (meta.sampleRecord) text += `; sample record (${sampleText(meta.sampleRecord, o)}`
  }
  return `${header(o)} (${text})]`
}

/**
 * Render metadata as a hint for the model. The block form:
 *
 * ```text
 * [Context available in __vars.context]
 *   Source: arsenal-feed.ndjson
 *   Format: NDJSON (newline-delimited JSON)
 *   Size: 3,800,000 chars, 11,001 lines
 *   Records: 11,001
 *   Fields: "author", "text", "createdAt", "authorProfile.displayName"
 *   Sample record (verbatim data): {"author":"did:plc:abc","text":"Arsenal win 3-0"}
 * ```
 *
 * Without a `fileName` (style `'auto'`) it is one line that keeps the fields and the sample.
 * What comes from the content is data, never instructions: the file name is flattened to one
 * line, field names and keys are JSON-quoted, the sample is marked as verbatim data and shown
 * as the file has it (JSON-quoted when it holds line breaks, controls or bidi characters), and
 * every part is capped, so the hint has a fixed set of lines whatever the data holds.
 * Throws a `ValidationError` when `meta` does not have the shape of {@link ContextMetadata}
 * (e.g. a value read back from untyped storage) or an option is invalid.
 */
export function formatContextHint(meta: ContextMetadata, options?: HintOptions): string {
  parseWith(ContextMetadataSchema, meta, 'formatContextHint metadata')
  const o = resolve(options)
  const style = o.style === 'auto' ? (meta.fileName ? 'block' : 'inline') : o.style
  if (style !== 'block') return inlineHint(meta, o, style === 'brief')
  const lines = [`${header(o)}]`]
  if (meta.fileName) lines.push(`  Source: ${sanitizeForPrompt(meta.fileName, o.maxNameChars)}`)
  lines.push(`  Format: ${formatLine(meta, o)}`)
  lines.push(
    `  Size: ${plural(meta.chars, 'char', 'chars')}, ${plural(meta.lines, 'line', 'lines')}`,
  )
  if (meta.recordCount !== undefined) lines.push(`  Records: ${formatCount(meta.recordCount)}`)
  const rootMap = meta.maps?.find((m) => m.key === undefined)
  if (meta.fields && meta.fields.length > 0 && !rootMap) {
    const label = contentOf(meta) === 'json' ? 'Keys' : 'Fields'
    lines.push(`  ${label}: ${quotedList(meta.fields, meta.fieldsTruncated === true, o)}`)
  }
  for (const map of (meta.maps ?? []).slice(0, 3)) lines.push(`  ${mapLine(map, o)}`)
  for (const arr of (meta.recordArrays ?? []).slice(0, 5)) {
    let line = `  Record array ${quoteForPrompt(truncate(arr.key, o.maxFieldChars))}: ${plural(arr.count, 'record', 'records')}`
    if (arr.declaredTotal !== undefined) line += ` of ${formatCount(arr.declaredTotal)} declared`
    if (arr.fields && arr.fields.length > 0)
      line += ` (fields: ${quotedList(arr.fields, false, o)})`
    lines.push(line)
  }
  for (const arr of (meta.valueArrays ?? []).slice(0, 5)) {
    const [one, many] = ELEMENT_WORDS[arr.elements as ElementKind] ?? ELEMENT_WORDS.none
    lines.push(
      `  Array ${quoteForPrompt(truncate(arr.key, o.maxFieldChars))}: ${plural(arr.count, one, many)}`,
    )
  }
  if (meta.sampleRecord) lines.push(`  Sample record (${sampleText(meta.sampleRecord, o)}`)
  for (const w of (meta.warnings ?? []).slice(0, 3)) {
    lines.push(`  Warning: ${sanitizeForPrompt(w.message, 200)}`)
  }
  return lines.join('\n')
}
