/** CSV/TSV detection with papaparse on a bounded prefix. */
import Papa from 'papaparse'
import { truncate } from './text-utils.js'

/** What delimited-text sniffing found. */
export interface CsvSniff {
  delimiter: string
  /** Header cells (or `column1…N` without a header). */
  fields: string[]
  fieldsTruncated?: boolean
  hasHeader: boolean
  /** `true` when the first line was a `sep=X` hint. */
  sepLine: boolean
  /** Data rows seen in the prefix. */
  rows: number
  /** Fields of the header (or first) row: rows with another count are ragged. */
  width: number
  sampleRecord?: string
  /**
   * `strong`: the content alone says delimited data (≥ 2 columns, consistent rows, not prose).
   * `weak`: parses consistently but only an extension could make it CSV (e.g. one column).
   */
  strength: 'strong' | 'weak'
}

const DELIMITERS = [',', '\t', ';', '|']
const MAX_ROWS = 200

function words(cell: string): number {
  const t = cell.trim()
  if (t === '') return 0
  return t.split(/\s+/).length
}

function isNumeric(cell: string): boolean {
  return /^\s*[-+]?(\d+([.,]\d+)*|\.\d+)([eE][-+]?\d+)?\s*$/.test(cell)
}

function balanced(cell: string): boolean {
  let round = 0
  let square = 0
  let curly = 0
  for (const ch of cell) {
    if (ch === '(') round++
    else if (ch === ')') round--
    else if (ch === '[') square++
    else if (ch === ']') square--
    else if (ch === '{') curly++
    else if (ch === '}') curly--
    if (round < 0 || square < 0 || curly < 0) return false
  }
  return round === 0 && square === 0 && curly === 0
}

/**
 * A header names columns: short cells (at most 6 words, 100 characters), brackets balanced in
 * each, no code operators, at most one empty cell and no name twice. Source code and prose
 * split at commas fail this; `Weight (lbs)` passes.
 */
export function isConsistentHeader(cells: readonly string[]): boolean {
  const seen = new Set<string>()
  let empty = 0
  for (const raw of cells) {
    const cell = raw.trim()
    if (cell === '') {
      empty++
      continue
    }
    if (cell.length > 100 || words(cell) > 6 || !balanced(cell)) return false
    if (/(=>|==|!=|&&|\|\||;\s*$)/.test(cell)) return false
    if (seen.has(cell)) return false
    seen.add(cell)
  }
  return empty <= 1 && seen.size > 0
}

/** The raw text of the record at `index` (0-based, quote-aware, blank lines skipped). */
function rawRecord(body: string, index: number, delimiter: string): string | undefined {
  let pos = 0
  let n = 0
  const len = body.length
  while (pos < len) {
    let i = pos
    let quoted = false
    let fieldStart = true
    for (; i < len; i++) {
      const c = body[i]
      if (quoted) {
        if (c === '"') {
          if (body[i + 1] === '"') i++
          else quoted = false
        }
        continue
      }
      if (c === '"' && fieldStart) quoted = true
      else if (c === '\n' || c === '\r') break
      fieldStart = c === delimiter
    }
    const record = body.slice(pos, i)
    pos = body[i] === '\r' && body[i + 1] === '\n' ? i + 2 : i + 1
    if (record.trim() === '') continue
    if (n === index) return record
    n++
  }
  return undefined
}

/**
 * Sniff CSV/TSV. `delimiterHint` forces the delimiter (e.g. from a `.tsv` extension); a first
 * line `sep=;` always wins. Rows must agree with the header's field count: a few ragged rows (one,
 * or up to a quarter) are tolerated and reported by the counter; a header must look like one
 * ({@link isConsistentHeader}).
 */
export function sniffCsv(
  text: string,
  complete: boolean,
  options: { delimiterHint?: string; maxFields: number; sampleChars: number },
): CsvSniff | undefined {
  let body = text
  let sepLine = false
  let delimiter = options.delimiterHint
  const sep = /^sep=(.)[ \t]*(\r\n|\n|\r|$)/i.exec(body)
  if (sep) {
    delimiter = sep[1]!
    sepLine = true
    body = body.slice(sep[0].length)
  }
  if (!complete) {
    const cut = Math.max(body.lastIndexOf('\n'), body.lastIndexOf('\r'))
    if (cut <= 0) return undefined
    body = body.slice(0, cut)
  }
  let parsed: Papa.ParseResult<string[]>
  try {
    parsed = Papa.parse<string[]>(body, {
      delimiter: delimiter ?? '',
      delimitersToGuess: DELIMITERS,
      preview: MAX_ROWS,
      skipEmptyLines: 'greedy',
    })
  } catch {
    return undefined
  }
  const rows = parsed.data.filter((r): r is string[] => Array.isArray(r))
  const d = delimiter ?? parsed.meta.delimiter
  if (rows.length === 0 || (!DELIMITERS.includes(d) && !sepLine)) return undefined
  const header = rows[0]!
  const width = header.length
  let consistent = 0
  let cells = 0
  let wordCount = 0
  let sentenceEnds = 0
  for (const row of rows) {
    if (row.length === width) consistent++
    for (const cell of row) {
      cells++
      wordCount += words(cell)
    }
    if (/[.!?]["')\]]?$/.test((row[row.length - 1] ?? '').trim())) sentenceEnds++
  }
  // Ragged rows (an extra or a missing field) are tolerated while few; they become a warning.
  const tolerated = Math.max(1, Math.floor(rows.length / 4))
  if (consistent < Math.min(2, rows.length) || consistent < rows.length - tolerated)
    return undefined
  const multiColumn = width >= 2
  // Prose: sentences split at commas (rows ending like sentences, several words per cell).
  const meanWords = cells > 0 ? wordCount / cells : 0
  const proseLike = meanWords >= 4 || (meanWords >= 2 && sentenceEnds / rows.length >= 0.5)
  const manyRows = rows.length >= 3 || (complete && rows.length >= 2)
  const quotedOrSep = sepLine || /"/.test(body.slice(0, 4096))
  const strength: 'strong' | 'weak' =
    multiColumn && !proseLike && (manyRows || (quotedOrSep && rows.length >= 2)) ? 'strong' : 'weak'
  const hasHeader = !header.some(isNumeric) || rows.length === 1
  if (hasHeader && !isConsistentHeader(header)) return undefined
  const names = hasHeader
    ? header.map((h, i) => (h.trim() === '' ? `column${i + 1}` : h.trim()))
    : header.map((_, i) => `column${i + 1}`)
  const fields = names.slice(0, options.maxFields)
  const dataRow = hasHeader ? rows[1] : rows[0]
  const out: CsvSniff = {
    delimiter: d,
    fields,
    hasHeader,
    sepLine,
    rows: rows.length - (hasHeader ? 1 : 0),
    width,
    strength,
  }
  if (names.length > fields.length) out.fieldsTruncated = true
  if (dataRow) {
    const raw = rawRecord(body, hasHeader ? 1 : 0, d)
    if (raw !== undefined) out.sampleRecord = truncate(raw, options.sampleChars)
  }
  return out
}
