/** The formats {@link analyzeContext} can report. */
export type ContextFormat =
  | 'ndjson'
  | 'json'
  | 'json-array'
  | 'csv'
  | 'tsv'
  | 'plain-text'
  | 'markdown'
  | 'xml'
  | 'html'
  | 'unknown'

/** Every {@link ContextFormat}, in a stable order. */
export const CONTEXT_FORMATS: readonly ContextFormat[] = [
  'ndjson',
  'json',
  'json-array',
  'csv',
  'tsv',
  'plain-text',
  'markdown',
  'xml',
  'html',
  'unknown',
]

/** Stable codes of {@link ContextWarning}s. */
export type ContextWarningCode =
  /** No content at all, or only whitespace. */
  | 'empty'
  /** Looks like UTF-16 text that was decoded as UTF-8 (NUL bytes between letters). */
  | 'utf16'
  /** Binary data or text decoded with the wrong encoding (many U+FFFD or control characters). */
  | 'misdecoded'
  /** The content or extension says JSON but it does not parse. */
  | 'malformed'

/** Something the model (and the caller) should know about the content. */
export interface ContextWarning {
  code: ContextWarningCode
  /** One line, prompt-safe. */
  message: string
}

/** An array of records found inside a JSON object (e.g. `{"data": [{...}, ...]}`). */
export interface RecordArray {
  /** Top-level key holding the array (in dot-path notation, see {@link ContextMetadata.fields}). */
  key: string
  /** Number of elements, counted over the whole input. */
  count: number
  /** Field names of the first elements (bounded union), when they are objects. */
  fields?: string[]
}

/** Line ending style seen in the content. */
export type LineEnding = 'lf' | 'crlf' | 'cr' | 'mixed'

/** What {@link analyzeContext} and {@link analyzeFile} learn about a context. */
export interface ContextMetadata {
  /** The file name given by the caller (e.g. `arsenal-feed.ndjson`), if any. */
  fileName?: string
  /** Detected format. */
  format: ContextFormat
  /** Length of the content in UTF-16 code units (`string.length`, a leading BOM included). */
  chars: number
  /** Size in bytes on disk (only from {@link analyzeFile}). */
  bytes?: number
  /** Line count, by the one rule documented in `countLines`. */
  lines: number
  /** Line ending style, when the content has at least one line break. */
  lineEnding?: LineEnding
  /** `true` when the content starts with a U+FEFF byte order mark. */
  bom?: boolean
  /**
   * Field names: NDJSON / JSON-array record keys (union over the first records, one-level dot
   * paths such as `author.name`; a literal key containing a dot is written `["a.b"]`), CSV/TSV
   * header cells, or the top-level keys of a JSON object. Capped (see `fieldsTruncated`).
   */
  fields?: string[]
  /** `true` when more fields existed than the cap allowed. */
  fieldsTruncated?: boolean
  /** Records over the whole input: NDJSON non-blank lines, JSON array elements, CSV data rows. */
  recordCount?: number
  /** The first record as text, truncated (never ends in half a surrogate pair). */
  sampleRecord?: string
  /** CSV/TSV delimiter. */
  delimiter?: string
  /** CSV/TSV: whether the first row was taken as a header. */
  hasHeader?: boolean
  /** JSON object: arrays of records under its top-level keys. */
  recordArrays?: RecordArray[]
  /** XML/HTML: name of the root element. */
  rootElement?: string
  /** Problems worth telling the model about. */
  warnings?: ContextWarning[]
}

/** Options of {@link analyzeContext} (and the detection part of {@link analyzeFile}). */
export interface AnalyzeOptions {
  /**
   * How many characters of the start of the content are used to detect the format and read
   * fields and the sample. The counts (lines, records) always cover the whole content.
   * Default `65536`.
   */
  sniffChars?: number
  /** How many records feed the field union. Default `100`. */
  maxSampleRecords?: number
  /** At most this many field names are kept in the metadata. Default `100`. */
  maxFields?: number
  /** Maximum length of `sampleRecord` in characters. Default `200`. */
  sampleChars?: number
}
