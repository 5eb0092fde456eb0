/** The formats {@link analyzeContext} can report. */
export type ContextFormat =
  | 'ndjson'
  | 'json'
  | 'json-array'
  | 'csv'
  | 'tsv'
  | 'plain-text'
  | 'markdown'
  | 'yaml'
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
  'yaml',
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
  /** The content or extension says JSON but it does not parse, or some NDJSON lines do not. */
  | 'malformed'
  /** CSV/TSV rows whose number of fields differs from the header's. */
  | 'ragged'
  /** A JSON record array looks like one page of a longer list (a `total` above its length). */
  | 'partial'
  /** The file name's extension names one format and the content reads as another. */
  | 'mismatch'

/**
 * What a plain-text or markdown context holds: `prose` (sentences, documents) or `structured`
 * (records, code or log lines: data the model should parse rather than read).
 */
export type TextKind = 'prose' | 'structured'

/** Something the model (and the caller) should know about the content. */
export interface ContextWarning {
  /** What kind of warning it is. */
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
  /**
   * A total the object declares beside the array (`total`, `count`, `totalCount`, …) when it is
   * larger than `count`: the array is one page of a longer list (see the `partial` warning).
   */
  declaredTotal?: number
}

/** What the elements of a JSON array (or the values of a map) are. */
export type ElementKind =
  | 'objects'
  | 'arrays'
  | 'numbers'
  | 'strings'
  | 'booleans'
  | 'nulls'
  | 'mixed'
  | 'none'

/** An array under a top-level key of a JSON object whose elements are not records. */
export interface ValueArray {
  /** Top-level key holding the array (dot-path notation). */
  key: string
  /** Number of elements, counted over the whole input. */
  count: number
  /** What the elements are (`numbers` for coordinates such as a `bbox`). */
  elements: ElementKind
}

/**
 * A JSON object used as a map keyed by ids (`{"AD": {...}, "AE": {...}, …}`): many keys whose
 * values have one shape.
 */
export interface JsonMap {
  /** Top-level key holding the map; absent when the root object itself is the map. */
  key?: string
  /** Number of entries, counted over the whole input. */
  entries: number
  /** The first keys (ids), at most 5. */
  keyExamples: string[]
  /** What the values are. */
  values: ElementKind
  /** Field names of the values, when they are objects. */
  valueFields?: string[]
}

/** Line ending style seen in the content. */
export type LineEnding = 'lf' | 'crlf' | 'cr' | 'mixed'

/** What {@link analyzeContext} and {@link analyzeFile} learn about a context. */
export interface ContextMetadata {
  /** The file name given by the caller (e.g. `arsenal-feed.ndjson`), if any. */
  fileName?: string
  /**
   * The format. A known extension decides it (`notes.txt` is `plain-text` whatever it holds);
   * without one, the content does. A JSON name on content that is not JSON is `unknown` (with a
   * `malformed` warning).
   */
  format: ContextFormat
  /**
   * What the content alone reads as, when that differs from `format` (a `.txt` holding CSV:
   * `csv`; an `.xml` holding NDJSON: `ndjson`). The counts, fields and sample describe the
   * content, so they follow this format. A contradiction also records a `mismatch` warning
   * (none for `.txt`/`.md`, which hold anything).
   */
  contentFormat?: ContextFormat
  /** `plain-text` and `markdown`: whether the text is prose or structured data. */
  textKind?: TextKind
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
   * header cells; for a JSON object its top-level keys (all of them, over the whole text) and
   * then one level of paths into object values (`app`, `scripts`, `app.server`,
   * `scripts.build`), or the value fields when the root object is a map keyed by ids. Capped
   * (see `fieldsTruncated`).
   */
  fields?: string[]
  /** `true` when more fields existed than the cap allowed. */
  fieldsTruncated?: boolean
  /**
   * Records over the whole input: NDJSON lines holding a JSON object or array (malformed lines
   * are counted in `malformedLines` instead), JSON array elements, CSV data rows, the entries of
   * a root JSON map.
   */
  recordCount?: number
  /**
   * The first record as the file has it (not re-serialized), truncated (never ends in half a
   * surrogate pair): an NDJSON line, a JSON array element, a CSV row, `"id": value` of a map,
   * the first element of a JSON object's largest record array, or the start of any other object.
   */
  sampleRecord?: string
  /** CSV/TSV delimiter. */
  delimiter?: string
  /** CSV/TSV: whether the first row was taken as a header. */
  hasHeader?: boolean
  /** JSON object: arrays of records under its top-level keys. */
  recordArrays?: RecordArray[]
  /** JSON object: arrays of other values (numbers, strings, arrays) under its top-level keys. */
  valueArrays?: ValueArray[]
  /** JSON object: maps keyed by ids (the root itself, or under top-level keys). */
  maps?: JsonMap[]
  /** NDJSON: non-blank lines that are not a JSON object or array (not in `recordCount`). */
  malformedLines?: number
  /** CSV/TSV: data rows whose number of fields differs from the header's. */
  raggedRows?: number
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
