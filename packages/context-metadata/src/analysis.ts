/**
 * Turns a {@link Detection} plus whole-input counts into {@link ContextMetadata}. Shared by
 * {@link analyzeContext} (one chunk) and {@link analyzeFile} (many chunks).
 */
import type { LineCount } from '@contextkit/core'
import { type CsvCountSpec, countsOnBytes } from './byte-csv-counter.js'
import { childFields, describeObject, firstDocumentFields } from './describe-json.js'
import type { Detection } from './detect.js'
import { reconcileWithName } from './extension-rule.js'
import { KIND } from './json-shape.js'
import { JsonShapeScanner } from './json-shape-scanner.js'
import { LineCounter, lineEndingOf } from './lines.js'
import type { ResolvedAnalyzeOptions } from './options.js'
import { CsvRecordCounter, NdjsonRecordCounter } from './record-counters.js'
import { formatCount, truncate } from './text-utils.js'
import type { ContextMetadata, ContextWarning } from './types.js'

/**
 * Totals counted somewhere else over the whole input (`analyzeFile` counts them on the bytes,
 * see `ByteTally`), taken by {@link Counting.byteTally} instead of its text counters.
 */
export interface CountedTotals {
  readonly chars: number
  readonly lines: { result(): LineCount }
  readonly ndjson: { result(): number; malformed(): number } | undefined
  readonly csv?: { result(): number; raggedRows(): number } | undefined
}

/** Counts lines, characters and (per the detected format) records over chunks of text. */
export class Counting {
  private tally: CountedTotals | undefined
  private chars = 0
  private startsWithBom: boolean | undefined
  private readonly lines = new LineCounter()
  private readonly csv: CsvRecordCounter | undefined
  /** What the CSV counter counts, for a count on bytes. */
  private readonly csvSpec: CsvCountSpec | undefined
  private ndjson: NdjsonRecordCounter | undefined
  private readonly scan: JsonShapeScanner | undefined
  /** JSON larger than the sniff window: count the lines after the first document, if any. */
  private readonly watchRest: boolean = false
  /** Records before the counter started (the first document). */
  private firstRecords = 0

  constructor(
    private readonly detection: Detection,
    private readonly limits: ResolvedAnalyzeOptions,
  ) {
    const f = detection.format
    if (f === 'ndjson') {
      this.ndjson = new NdjsonRecordCounter()
      if (detection.scanFirstDocument) this.scan = new JsonShapeScanner()
    } else if (f === 'csv' || f === 'tsv') {
      this.csvSpec = {
        delimiter: detection.delimiter ?? (f === 'tsv' ? '\t' : ','),
        expectedFields: detection.expectedFields ?? 0,
        skipRecords: detection.skipRecords ?? 0,
      }
      this.csv = new CsvRecordCounter(this.csvSpec.delimiter, this.csvSpec)
    } else if (f === 'json' || f === 'json-array') {
      this.scan = new JsonShapeScanner()
      // Larger than the sniff window: what follows the first document may make it NDJSON.
      // The line counter starts where the first document ends (one record already).
      this.watchRest = detection.jsonOpen === true
    }
  }

  /**
   * Count on the input's bytes instead of its text, when no counter of the detected format
   * needs text (the JSON ones do, and CSV with a delimiter `countsOnBytes` refuses):
   * `make(ndjson, csv)` creates the totals (`ndjson`: whether to count NDJSON records; `csv`:
   * what to count CSV records by, if any), which are returned to be fed all the bytes, from the
   * first; or `undefined`. Call before any `push`.
   */
  byteTally<T extends CountedTotals>(
    startsWithBom: boolean,
    make: (ndjson: boolean, csv: CsvCountSpec | undefined) => T,
  ): T | undefined {
    if (this.scan || this.chars > 0) return undefined
    if (this.csvSpec && !countsOnBytes(this.csvSpec.delimiter)) return undefined
    this.startsWithBom = startsWithBom
    const tally = make(this.ndjson !== undefined, this.csvSpec)
    this.tally = tally
    return tally
  }

  /** Feed the next chunk. */
  push(chunk: string): void {
    if (chunk.length === 0) return
    let text = chunk
    if (this.startsWithBom === undefined) {
      this.startsWithBom = chunk.charCodeAt(0) === 0xfeff
      // the scanner must not take a BOM for a value
      if (this.startsWithBom) text = chunk.slice(1)
    }
    this.chars += chunk.length
    this.lines.push(chunk)
    this.csv?.push(chunk)
    this.ndjson?.push(chunk)
    if (this.scan) {
      const wasClosed = this.scan.result().rootClosed
      this.scan.push(text)
      if (this.watchRest && !wasClosed && this.scan.closedAt >= 0) {
        this.ndjson = new NdjsonRecordCounter()
        this.firstRecords = 1
        this.ndjson.push(text.slice(this.scan.closedAt))
      }
    }
  }

  /** The metadata, with `fileName` and `bytes` when given. */
  finish(fileName: string | undefined, bytes?: number): ContextMetadata {
    const d = this.detection
    const lineCount: LineCount = (this.tally?.lines ?? this.lines).result()
    const ndjson = this.tally?.ndjson ?? this.ndjson
    const scan = this.scan?.result()
    let format = d.format
    if ((format === 'json' || format === 'json-array') && scan && scan.rootValues > 1) {
      format = 'ndjson'
    }
    const warnings: ContextWarning[] = d.warnings.filter(
      (w) => !(format === 'ndjson' && w.code === 'malformed'),
    )
    const chars = this.tally?.chars ?? this.chars
    const named = reconcileWithName(d.named, format, d.codeLike === true)
    const meta: ContextMetadata = { format: named.format, chars, lines: lineCount.lines }
    if (named.contentFormat !== undefined) meta.contentFormat = named.contentFormat
    if (named.textKind !== undefined) meta.textKind = named.textKind
    if (named.warning) warnings.unshift(named.warning)
    if (fileName !== undefined) meta.fileName = fileName
    if (bytes !== undefined) meta.bytes = bytes
    const ending = lineEndingOf(lineCount)
    if (ending) meta.lineEnding = ending
    if (this.startsWithBom) meta.bom = true
    if (d.fields) meta.fields = d.fields
    if (d.fieldsTruncated) meta.fieldsTruncated = true
    if (d.sampleRecord !== undefined) meta.sampleRecord = d.sampleRecord
    if (format === 'ndjson' && ndjson) {
      const hidden = d.hiddenBadLines ?? 0
      const bad = ndjson.malformed() + hidden
      meta.recordCount = Math.max(0, this.firstRecords + ndjson.result() - hidden)
      if (bad > 0) {
        meta.malformedLines = bad
        warnings.push({
          code: 'malformed',
          message: `${formatCount(bad)} of ${formatCount(bad + meta.recordCount)} non-blank lines are not JSON records (left out of the record count).`,
        })
      }
      if (!meta.fields && scan) {
        const { fields, truncated } = firstDocumentFields(scan, this.limits)
        if (fields) meta.fields = fields
        if (truncated) meta.fieldsTruncated = true
      }
      if (meta.sampleRecord === undefined && d.documentStart) meta.sampleRecord = d.documentStart
    } else if (format === 'json-array' && scan) {
      if (scan.rootClosed) meta.recordCount = scan.root.count
      if (!meta.fields && scan.root.kinds & KIND.object) {
        const fields = childFields(scan.root, this.limits)
        if (fields && fields.length > 0) meta.fields = fields
      }
      if (meta.sampleRecord === undefined && scan.root.first !== undefined) {
        meta.sampleRecord = truncate(scan.root.first, this.limits.sampleChars)
      }
    } else if (format === 'json' && scan) {
      const j = describeObject(scan, this.limits, {
        ...(d.arrayFields ? { arrayFields: d.arrayFields } : {}),
        start: d.documentStart ?? '',
      })
      if (j.fields) meta.fields = j.fields
      if (j.fieldsTruncated) meta.fieldsTruncated = true
      if (j.recordCount !== undefined) meta.recordCount = j.recordCount
      if (j.sampleRecord !== undefined) meta.sampleRecord = j.sampleRecord
      if (j.recordArrays) meta.recordArrays = j.recordArrays
      if (j.valueArrays) meta.valueArrays = j.valueArrays
      if (j.maps) meta.maps = j.maps
      warnings.push(...j.warnings)
    }
    if ((format === 'json' || format === 'json-array') && scan && !scan.rootClosed) {
      warnings.push({
        code: 'malformed',
        message: 'The JSON ends before its root value closes (the file may be truncated).',
      })
    }
    const csv = this.tally ? this.tally.csv : this.csv
    if (csv) {
      meta.recordCount = Math.max(0, csv.result() - (d.skipRecords ?? 0))
      const ragged = csv.raggedRows()
      if (ragged > 0) {
        meta.raggedRows = ragged
        warnings.push({
          code: 'ragged',
          message: `${formatCount(ragged)} of ${formatCount(meta.recordCount)} rows do not have the header's ${d.expectedFields} fields.`,
        })
      }
    }
    if (d.delimiter !== undefined) meta.delimiter = d.delimiter
    if (d.hasHeader !== undefined) meta.hasHeader = d.hasHeader
    if (d.rootElement !== undefined) meta.rootElement = d.rootElement
    if (warnings.length > 0) meta.warnings = warnings
    return meta
  }
}
