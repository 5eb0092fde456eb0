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

/**
 * Sniff CSV/TSV. `delimiterHint` forces the delimiter (e.g. from a `.tsv` extension); a first
 * line `sep=;` always wins. Rows must have a consistent field count (≥ 90% equal to the first).
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
  if (consistent / rows.length < 0.9) return undefined
  const multiColumn = width >= 2
  // Prose: sentences split at commas (rows ending like sentences, several words per cell).
  const meanWords = cells > 0 ? wordCount / cells : 0
  const proseLike = meanWords >= 4 || (meanWords >= 2 && sentenceEnds / rows.length >= 0.5)
  const manyRows = rows.length >= 3 || (complete && rows.length >= 2)
  const quotedOrSep = sepLine || /"/.test(body.slice(0, 4096))
  const strength: 'strong' | 'weak' =
    multiColumn && !proseLike && (manyRows || (quotedOrSep && rows.length >= 2)) ? 'strong' : 'weak'
  const hasHeader = !header.some(isNumeric) || rows.length === 1
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
    strength,
  }
  if (names.length > fields.length) out.fieldsTruncated = true
  if (dataRow)
    out.sampleRecord = truncate(Papa.unparse([dataRow], { delimiter: d }), options.sampleChars)
  return out
}
