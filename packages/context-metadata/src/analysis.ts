/**
 * Turns a {@link Detection} plus whole-input counts into {@link ContextMetadata}. Shared by
 * {@link analyzeContext} (one chunk) and {@link analyzeFile} (many chunks).
 */
import { ConfigurationError } from '@contextkit/core'
import type { Detection } from './detect.js'
import { fieldPath } from './fields.js'
import { LineCounter, lineEndingOf } from './lines.js'
import {
  CsvRecordCounter,
  JsonRecordCounter,
  NonBlankLineCounter,
  type RecordCounter,
} from './record-counters.js'
import type { SniffLimits } from './sniff-json.js'
import type { AnalyzeOptions, ContextMetadata, RecordArray } from './types.js'

/** Defaults of {@link AnalyzeOptions}. */
export const ANALYZE_DEFAULTS = {
  sniffChars: 65536,
  maxSampleRecords: 100,
  maxFields: 100,
  sampleChars: 200,
} as const

/** Resolved, checked analysis options. */
export interface ResolvedAnalyzeOptions extends SniffLimits {
  sniffChars: number
}

function positiveInt(value: unknown, name: string, fallback: number): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw new ConfigurationError(`${name} must be a positive integer, got ${String(value)}`, {
      details: { option: name },
    })
  }
  return value
}

/** Check options, filling in defaults; throws `ConfigurationError` on bad values. */
export function resolveAnalyzeOptions(options: AnalyzeOptions | undefined): ResolvedAnalyzeOptions {
  const o: AnalyzeOptions = options ?? {}
  return {
    sniffChars: positiveInt(o.sniffChars, 'sniffChars', ANALYZE_DEFAULTS.sniffChars),
    maxSampleRecords: positiveInt(
      o.maxSampleRecords,
      'maxSampleRecords',
      ANALYZE_DEFAULTS.maxSampleRecords,
    ),
    maxFields: positiveInt(o.maxFields, 'maxFields', ANALYZE_DEFAULTS.maxFields),
    sampleChars: positiveInt(o.sampleChars, 'sampleChars', ANALYZE_DEFAULTS.sampleChars),
  }
}

/** Counts lines, characters and (per the detected format) records over chunks of text. */
export class Counting {
  private chars = 0
  private startsWithBom: boolean | undefined
  private readonly lines = new LineCounter()
  private readonly records: RecordCounter | undefined
  private readonly json: JsonRecordCounter | undefined

  constructor(private readonly detection: Detection) {
    const f = detection.format
    if (f === 'ndjson') this.records = new NonBlankLineCounter()
    else if (f === 'csv' || f === 'tsv') {
      this.records = new CsvRecordCounter(detection.delimiter ?? (f === 'tsv' ? '\t' : ','))
    } else if (f === 'json' || f === 'json-array') this.json = new JsonRecordCounter()
  }

  /** Feed the next chunk. */
  push(chunk: string): void {
    if (chunk.length === 0) return
    if (this.startsWithBom === undefined) this.startsWithBom = chunk.charCodeAt(0) === 0xfeff
    this.chars += chunk.length
    this.lines.push(chunk)
    this.records?.push(chunk)
    this.json?.push(chunk)
  }

  /** The metadata, with `fileName` and `bytes` when given. */
  finish(fileName: string | undefined, bytes?: number): ContextMetadata {
    const d = this.detection
    const lineCount = this.lines.result()
    const meta: ContextMetadata = { format: d.format, chars: this.chars, lines: lineCount.lines }
    if (fileName !== undefined) meta.fileName = fileName
    if (bytes !== undefined) meta.bytes = bytes
    const ending = lineEndingOf(lineCount)
    if (ending) meta.lineEnding = ending
    if (this.startsWithBom) meta.bom = true
    if (d.fields) meta.fields = d.fields
    if (d.fieldsTruncated) meta.fieldsTruncated = true
    if (this.records) {
      meta.recordCount = Math.max(0, this.records.result() - (d.skipRecords ?? 0))
    }
    if (this.json) {
      const counts = this.json.counts()
      if (d.format === 'json-array' && counts.rootElements !== undefined) {
        meta.recordCount = counts.rootElements
      }
      if (d.format === 'json' && counts.arrays.length > 0) {
        meta.recordArrays = counts.arrays.map((a) => {
          const key = fieldPath(undefined, a.key)
          const entry: RecordArray = { key, count: a.count }
          const fields = d.arrayFields?.get(key)
          if (fields) entry.fields = fields
          return entry
        })
      }
    }
    if (d.sampleRecord !== undefined) meta.sampleRecord = d.sampleRecord
    if (d.delimiter !== undefined) meta.delimiter = d.delimiter
    if (d.hasHeader !== undefined) meta.hasHeader = d.hasHeader
    if (d.rootElement !== undefined) meta.rootElement = d.rootElement
    if (d.warnings.length > 0) meta.warnings = d.warnings
    return meta
  }
}
