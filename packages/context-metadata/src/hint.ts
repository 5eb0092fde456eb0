/** Prompt-safe rendering of {@link ContextMetadata} as a short hint for the model. */
import { ValidationError } from '@contextkit/core'
import { truncate, wellFormed } from './text-utils.js'
import type { ContextFormat, ContextMetadata, RecordArray } from './types.js'

/** Options of {@link formatContextHint}. */
export interface HintOptions {
  /** How the model reaches the context. Default `'__vars.context'`. */
  contextRef?: string
  /**
   * `'block'`: multi-line (Source/Format/Size/…); `'inline'`: one line; `'auto'`: block when the
   * metadata has a `fileName`, inline otherwise. Default `'auto'`.
   */
  style?: 'auto' | 'block' | 'inline'
  /** At most this many field names are listed (the rest as `… (+N more)`). Default `30`. */
  maxFields?: number
  /** Each field name is cut to this many characters. Default `64`. */
  maxFieldChars?: number
  /** The sample record is cut to this many characters. Default `200`. */
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

const FORMAT_LABELS: Record<ContextFormat, string> = {
  ndjson: 'NDJSON (newline-delimited JSON)',
  json: 'JSON object',
  'json-array': 'JSON array',
  csv: 'CSV',
  tsv: 'TSV (tab-separated values)',
  'plain-text': 'Plain text',
  markdown: 'Markdown',
  xml: 'XML',
  html: 'HTML',
  unknown: 'Unknown',
}

/** Short label of a format for the inline form. */
const SHORT_LABELS: Record<ContextFormat, string> = {
  ...FORMAT_LABELS,
  ndjson: 'NDJSON',
  tsv: 'TSV',
}

/**
 * Make a string safe to put on one line of a prompt: line breaks, tabs and other control or
 * separator characters become spaces, backticks become `'`, lone surrogates U+FFFD; whitespace
 * runs collapse; the result is cut to `max` characters.
 */
export function sanitizeForPrompt(text: string, max: number): string {
  const clean = wellFormed(String(text))
    .replace(
      /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200b-\u200f\u202a-\u202e\u2066-\u2069]/g,
      ' ',
    )
    .replace(/`/g, "'")
    .replace(/ {2,}/g, ' ')
    .trim()
  return truncate(clean, max)
}

/**
 * A sample record on one line: line breaks are shown as `\n`, tabs as `\t`, other controls
 * dropped, backticks become `'`; cut to `max` characters (never mid surrogate pair).
 */
function sanitizeSample(text: string, max: number): string {
  const clean = wellFormed(text)
    .replace(/\r\n|\r|\n|\u2028|\u2029/g, '\\n')
    .replace(/\t/g, '\\t')
    .replace(/[\u0000-\u001f\u007f-\u009f]/g, '')
    .replace(/`/g, "'")
  return truncate(clean, max)
}

/** `1234567` → `1,234,567` (independent of the locale). */
export function formatCount(n: number): string {
  const s = String(Math.trunc(Math.abs(n)))
  const grouped = s.replace(/\B(?=(\d{3})+(?!\d))/g, ',')
  return n < 0 ? `-${grouped}` : grouped
}

function plural(n: number, one: string, many: string): string {
  return `${formatCount(n)} ${n === 1 ? one : many}`
}

function fieldList(
  fields: readonly string[],
  truncated: boolean,
  o: Required<HintOptions>,
): string {
  const shown = fields.slice(0, o.maxFields).map((f) => sanitizeForPrompt(f, o.maxFieldChars))
  const more = fields.length - shown.length
  let text = shown.join(', ')
  if (more > 0) text += `, … (+${formatCount(more)} more)`
  else if (truncated) text += ', …'
  return text
}

function resolve(options: HintOptions | undefined): Required<HintOptions> {
  const o = { ...HINT_DEFAULTS, ...options }
  const int = (v: number, d: number): number => (Number.isInteger(v) && v > 0 ? v : d)
  return {
    contextRef: sanitizeForPrompt(o.contextRef, 200) || HINT_DEFAULTS.contextRef,
    style: o.style === 'block' || o.style === 'inline' ? o.style : 'auto',
    maxFields: int(o.maxFields, HINT_DEFAULTS.maxFields),
    maxFieldChars: int(o.maxFieldChars, HINT_DEFAULTS.maxFieldChars),
    sampleChars: int(o.sampleChars, HINT_DEFAULTS.sampleChars),
    maxNameChars: int(o.maxNameChars, HINT_DEFAULTS.maxNameChars),
  }
}

function isStringArray(value: unknown): boolean {
  return Array.isArray(value) && value.every((v) => typeof v === 'string')
}

/** Throws a ValidationError naming the first field of `meta` that a hint cannot be built from. */
function checkMeta(meta: unknown): asserts meta is ContextMetadata {
  const fail = (path: string, message: string): never => {
    throw new ValidationError(`formatContextHint: invalid metadata (${path}: ${message})`, [
      { path, message },
    ])
  }
  if (typeof meta !== 'object' || meta === null) return fail('(root)', 'expected an object')
  const m = meta as Record<string, unknown>
  if (typeof m.format !== 'string') fail('format', 'expected a string')
  for (const key of ['chars', 'lines'] as const) {
    if (typeof m[key] !== 'number') fail(key, 'expected a number')
  }
  if (m.recordCount !== undefined && typeof m.recordCount !== 'number') {
    fail('recordCount', 'expected a number')
  }
  for (const key of ['fileName', 'sampleRecord', 'delimiter', 'rootElement'] as const) {
    if (m[key] !== undefined && typeof m[key] !== 'string') fail(key, 'expected a string')
  }
  if (m.fields !== undefined && !isStringArray(m.fields)) fail('fields', 'expected strings')
  const arrays = m.recordArrays
  if (arrays !== undefined) {
    const ok =
      Array.isArray(arrays) &&
      arrays.every(
        (a: unknown) =>
          typeof a === 'object' &&
          a !== null &&
          typeof (a as RecordArray).key === 'string' &&
          typeof (a as RecordArray).count === 'number' &&
          ((a as RecordArray).fields === undefined || isStringArray((a as RecordArray).fields)),
      )
    if (!ok) fail('recordArrays', 'expected { key, count, fields? } objects')
  }
  const warnings = m.warnings
  if (
    warnings !== undefined &&
    !(
      Array.isArray(warnings) &&
      warnings.every(
        (w: unknown) =>
          typeof w === 'object' &&
          w !== null &&
          typeof (w as { message?: unknown }).message === 'string',
      )
    )
  ) {
    fail('warnings', 'expected { code, message } objects')
  }
}

/** The one-line form: `[Context available in __vars.context (45,000 chars, 200 lines, detected: NDJSON)]`. */
function inlineHint(meta: ContextMetadata, o: Required<HintOptions>): string {
  const parts = [plural(meta.chars, 'char', 'chars'), plural(meta.lines, 'line', 'lines')]
  if (meta.recordCount !== undefined) parts.push(plural(meta.recordCount, 'record', 'records'))
  parts.push(`detected: ${SHORT_LABELS[meta.format] ?? 'Unknown'}`)
  return `[Context available in ${o.contextRef} (${parts.join(', ')})]`
}

/**
 * Render metadata as a hint for the model. The block form:
 *
 * ```text
 * [Context available in __vars.context]
 *   Source: arsenal-feed.ndjson
 *   Format: NDJSON (newline-delimited JSON)
 *   Size: 3,800,000 chars, 11,001 lines
 *   Records: 11,000
 *   Fields: author, text, createdAt, authorProfile.displayName
 *   Sample record: {"author":"did:plc:abc","text":"Arsenal win 3-0..."}
 * ```
 *
 * Without a `fileName` (style `'auto'`) it is one line. Everything from the content (file
 * name, field names, sample) is sanitized: no line breaks, no backticks, capped lengths.
 * Throws a `ValidationError` when `meta` does not have the shape of {@link ContextMetadata}
 * (e.g. a value read back from untyped storage).
 */
export function formatContextHint(meta: ContextMetadata, options?: HintOptions): string {
  checkMeta(meta)
  const o = resolve(options)
  const style = o.style === 'auto' ? (meta.fileName ? 'block' : 'inline') : o.style
  if (style === 'inline') return inlineHint(meta, o)
  const lines = [`[Context available in ${o.contextRef}]`]
  if (meta.fileName) lines.push(`  Source: ${sanitizeForPrompt(meta.fileName, o.maxNameChars)}`)
  let format = FORMAT_LABELS[meta.format] ?? 'Unknown'
  if ((meta.format === 'xml' || meta.format === 'html') && meta.rootElement) {
    format += ` (root <${sanitizeForPrompt(meta.rootElement, o.maxFieldChars)}>)`
  }
  if (
    (meta.format === 'csv' || meta.format === 'tsv') &&
    meta.delimiter &&
    meta.delimiter !== '\t'
  ) {
    format += ` (delimiter ${JSON.stringify(meta.delimiter)}${meta.hasHeader === false ? ', no header' : ''})`
  } else if (meta.format === 'tsv' && meta.hasHeader === false) format += ' (no header)'
  lines.push(`  Format: ${format}`)
  lines.push(
    `  Size: ${plural(meta.chars, 'char', 'chars')}, ${plural(meta.lines, 'line', 'lines')}`,
  )
  if (meta.recordCount !== undefined) lines.push(`  Records: ${formatCount(meta.recordCount)}`)
  if (meta.fields && meta.fields.length > 0) {
    const label = meta.format === 'json' ? 'Keys' : 'Fields'
    lines.push(`  ${label}: ${fieldList(meta.fields, meta.fieldsTruncated === true, o)}`)
  }
  for (const arr of (meta.recordArrays ?? []).slice(0, 5)) {
    let line = `  Record array ${sanitizeForPrompt(arr.key, o.maxFieldChars)}: ${plural(arr.count, 'record', 'records')}`
    if (arr.fields && arr.fields.length > 0) line += ` (fields: ${fieldList(arr.fields, false, o)})`
    lines.push(line)
  }
  if (meta.sampleRecord !== undefined && meta.sampleRecord !== '') {
    lines.push(`  Sample record: ${sanitizeSample(meta.sampleRecord, o.sampleChars)}`)
  }
  for (const w of (meta.warnings ?? []).slice(0, 3)) {
    lines.push(`  Warning: ${sanitizeForPrompt(w.message, 200)}`)
  }
  return lines.join('\n')
}
