/**
 * Format detection on a bounded prefix: what the content reads as (the extension only breaks
 * its ties). The name's format is kept beside it; `reconcileWithName` decides the reported
 * format once the whole input is counted.
 */
import { type CsvSniff, sniffCsv } from './sniff-csv.js'
import {
  type JsonSniff,
  type NdjsonSniff,
  type SniffLimits,
  sniffJson,
  sniffNdjson,
} from './sniff-json.js'
import { looksLikeCode, looksLikeLogfmt, looksLikeYaml } from './sniff-lines.js'
import { encodingTrouble, hasMarkdownTable, markdownScore, sniffMarkup } from './sniff-text.js'
import { skipWs, splitLines, stripBom, truncate } from './text-utils.js'
import type { ContextFormat, ContextWarning } from './types.js'

/** Everything detection learns from the prefix; counting over the whole input comes after. */
export interface Detection {
  format: ContextFormat
  fields?: string[]
  fieldsTruncated?: boolean
  sampleRecord?: string
  delimiter?: string
  hasHeader?: boolean
  /** CSV rows to subtract from the record count (header, `sep=` line). */
  skipRecords?: number
  arrayFields?: Map<string, string[]>
  rootElement?: string
  /** JSON larger than the prefix: a second document after the first makes it NDJSON. */
  jsonOpen?: boolean
  /** NDJSON without a complete record in the prefix: read the fields from the first one. */
  scanFirstDocument?: boolean
  /** NDJSON lines of the prefix that look like records but do not parse. */
  hiddenBadLines?: number
  /** The raw start of the document, cut to the sample length (JSON, NDJSON). */
  documentStart?: string
  /** CSV/TSV: the header's field count, to count ragged rows against. */
  expectedFields?: number
  /** The format the file name's known extension names, if any. */
  named?: ContextFormat
  /** Plain text that is source code or log lines (structured, not prose). */
  codeLike?: boolean
  warnings: ContextWarning[]
}

const EXTENSIONS: Record<string, ContextFormat> = {
  ndjson: 'ndjson',
  jsonl: 'ndjson',
  ldjson: 'ndjson',
  json: 'json',
  geojson: 'json',
  csv: 'csv',
  tsv: 'tsv',
  tab: 'tsv',
  txt: 'plain-text',
  text: 'plain-text',
  log: 'plain-text',
  md: 'markdown',
  markdown: 'markdown',
  mdx: 'markdown',
  yaml: 'yaml',
  yml: 'yaml',
  xml: 'xml',
  svg: 'xml',
  xsd: 'xml',
  rss: 'xml',
  atom: 'xml',
  html: 'html',
  htm: 'html',
  xhtml: 'html',
}

/** The format a file name's extension suggests, if it is one we know (`undefined` for a non-string). */
export function formatFromExtension(fileName: string | undefined): ContextFormat | undefined {
  if (typeof fileName !== 'string' || fileName === '') return undefined
  const base = fileName.slice(Math.max(fileName.lastIndexOf('/'), fileName.lastIndexOf('\\')) + 1)
  const dot = base.lastIndexOf('.')
  if (dot <= 0) return undefined
  const ext = base.slice(dot + 1).toLowerCase()
  return Object.hasOwn(EXTENSIONS, ext) ? EXTENSIONS[ext] : undefined
}

function fromCsv(csv: CsvSniff, warnings: ContextWarning[]): Detection {
  const out: Detection = {
    format: csv.delimiter === '\t' ? 'tsv' : 'csv',
    fields: csv.fields,
    delimiter: csv.delimiter,
    hasHeader: csv.hasHeader,
    skipRecords: (csv.hasHeader ? 1 : 0) + (csv.sepLine ? 1 : 0),
    expectedFields: csv.width,
    warnings,
  }
  if (csv.fieldsTruncated) out.fieldsTruncated = true
  if (csv.sampleRecord !== undefined) out.sampleRecord = csv.sampleRecord
  return out
}

/**
 * Detect the format of `prefix` (the start of the content; `complete` when it is all of it),
 * and note the format the file name's extension names (`named`).
 */
export function detect(
  prefix: string,
  complete: boolean,
  fileName: string | undefined,
  limits: SniffLimits,
): Detection {
  const ext = formatFromExtension(fileName)
  const detection = detectContent(prefix, complete, ext, limits)
  if (ext !== undefined) detection.named = ext
  return detection
}

function detectContent(
  prefix: string,
  complete: boolean,
  ext: ContextFormat | undefined,
  limits: SniffLimits,
): Detection {
  const text = stripBom(prefix)
  const warnings: ContextWarning[] = []
  const start = skipWs(text, 0)
  if (start < 0 && complete) {
    warnings.push({ code: 'empty', message: 'The context is empty or only whitespace.' })
    return { format: 'unknown', warnings }
  }
  const trouble = encodingTrouble(text)
  if (trouble) return { format: 'unknown', warnings: [trouble] }
  const first = start < 0 ? -1 : text.charCodeAt(start)
  const jsonish = ext === 'json' || ext === 'ndjson'

  if (first === 123 || first === 91 || (first >= 0 && (ext === 'ndjson' || jsonLineAhead(text)))) {
    const json = detectJson(text, complete, ext, limits, warnings)
    if (json) return json
    if (jsonish) {
      warnings.push({
        code: 'malformed',
        message: `The content is not valid ${ext === 'ndjson' ? 'NDJSON' : 'JSON'}.`,
      })
      return { format: 'unknown', warnings }
    }
  }

  if (first === 60) {
    const markup = sniffMarkup(text.slice(start))
    if (markup) {
      const out: Detection = { format: markup.format, warnings }
      if (markup.rootElement) out.rootElement = markup.rootElement
      return out
    }
  }

  const lines = splitLines(text.length > 65536 ? text.slice(0, 65536) : text)
  if (!complete && lines.length > 1) lines.pop()
  if (ext === 'yaml' || looksLikeYaml(lines)) return { format: 'yaml', warnings }
  // Source code and logfmt logs are never CSV nor markdown, whatever commas or `#` they hold.
  if (looksLikeCode(lines) || looksLikeLogfmt(lines)) {
    if (ext === 'markdown' && markdownScore(lines) >= 3) return { format: 'markdown', warnings }
    return { format: 'plain-text', codeLike: true, warnings }
  }
  if (hasMarkdownTable(lines)) return { format: 'markdown', warnings }

  const csv = sniffCsv(text, complete, {
    ...(ext === 'tsv' ? { delimiterHint: '\t' } : {}),
    maxFields: limits.maxFields,
    sampleChars: limits.sampleChars,
  })
  if (csv?.strength === 'strong') return fromCsv(csv, warnings)

  const md = markdownScore(lines)
  if (md >= 3) return { format: 'markdown', warnings }

  // Ties: the content has no strong signal of its own, so the extension decides.
  if ((ext === 'csv' || ext === 'tsv') && csv) return fromCsv(csv, warnings)
  if (ext === 'markdown' && !lines[0]?.startsWith('#!')) return { format: 'markdown', warnings }
  return {
    format: 'plain-text',
    ...(lines[0]?.startsWith('#!') ? { codeLike: true } : {}),
    warnings,
  }
}

/** `true` when one of the first 10 non-blank lines starts with `{` or `[` (NDJSON after a bad line). */
function jsonLineAhead(text: string): boolean {
  const re = /^[ \t]*(\S)/gm
  const head = text.slice(0, 8192)
  let n = 0
  for (let m = re.exec(head); m && n < 10; m = re.exec(head), n++) {
    if (m[1] === '{' || m[1] === '[') return true
  }
  return false
}

function fromNdjson(nd: NdjsonSniff, warnings: ContextWarning[]): Detection {
  const out: Detection = { format: 'ndjson', warnings }
  if (nd.hiddenBadLines) out.hiddenBadLines = nd.hiddenBadLines
  if (nd.fields) out.fields = nd.fields
  if (nd.fieldsTruncated) out.fieldsTruncated = true
  if (nd.sampleRecord !== undefined) out.sampleRecord = nd.sampleRecord
  return out
}

function fromJson(json: JsonSniff, warnings: ContextWarning[], start: string): Detection {
  const out: Detection = { format: json.format, warnings, documentStart: start }
  if (json.open) out.jsonOpen = true
  if (json.fields) out.fields = json.fields
  if (json.fieldsTruncated) out.fieldsTruncated = true
  if (json.sampleRecord !== undefined) out.sampleRecord = json.sampleRecord
  if (json.arrayFields) out.arrayFields = json.arrayFields
  return out
}

/**
 * JSON or NDJSON, or `undefined`. NDJSON needs two records in the prefix, or one with an
 * `.ndjson`/`.jsonl` name, or a first record that runs past the prefix under such a name (then
 * the fields come from the whole-input scan). JSON whose first value runs past the prefix is
 * marked `jsonOpen`: the count decides whether another document follows (NDJSON) or not.
 */
function detectJson(
  text: string,
  complete: boolean,
  ext: ContextFormat | undefined,
  limits: SniffLimits,
  warnings: ContextWarning[],
): Detection | undefined {
  const start = truncate(text.slice(skipWs(text, 0)), limits.sampleChars)
  const nd = sniffNdjson(text, complete, limits)
  if (nd && nd.records >= 2) return fromNdjson(nd, warnings)
  const json = sniffJson(text, complete, limits)
  if (nd && ((!json && !complete) || ext === 'ndjson')) return fromNdjson(nd, warnings)
  if (json && ext === 'ndjson' && json.open) {
    return { format: 'ndjson', warnings, scanFirstDocument: true, documentStart: start }
  }
  if (json) return fromJson(json, warnings, start)
  return undefined
}
