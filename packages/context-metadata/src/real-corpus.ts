/**
 * The real-data corpus used by the tests and the bench (not part of the package API): every
 * data file of the exact-pinned dev dependencies `vega-datasets`, `world-atlas` and
 * `countries-list` (CSV, TSV, JSON, TopoJSON, GeoJSON, SQL, binaries), their source and docs,
 * and files derived from them (NDJSON, a JSONL with lines over 64 KB, bad lines, a ragged CSV,
 * a paged wrapper). The truth of each file comes from a full parse, never from the detector.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { basename, extname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import Papa from 'papaparse'
import type { ContextFormat, ContextMetadata } from './types.js'

/** What a file is, by a full parse. */
export interface Truth {
  /** Scoring class (`json-object`, `map`, `csv`, `code`, `binary`, …). */
  kind: string
  format: ContextFormat
  recordCount?: number
  /** Keys that must be among the fields (a header, the first record's keys). */
  fields?: string[]
  /** JSON object: its top-level keys in order; the fields must start with them. */
  keys?: string[]
  /** JSON object: element counts of the arrays under its keys. */
  arrays?: Record<string, number>
  mapEntries?: number
  malformedLines?: number
  raggedRows?: number
  partial?: boolean
}

/** One corpus file. */
export interface CorpusFile {
  path: string
  /** Where it comes from: `vega-datasets/data/cars.json`, `derived/flights.ndjson`. */
  label: string
}

const MODULES = fileURLToPath(new URL('../node_modules/', import.meta.url))
const SKIP = /(^|\/)(LICENSE|package\.json)$|\.min\.js\.map$/

function walk(dir: string, prefix: string, out: CorpusFile[]): void {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name)
    const label = `${prefix}/${name}`
    if (name === 'node_modules') continue
    if (statSync(path).isDirectory()) walk(path, label, out)
    else if (!SKIP.test(label)) out.push({ path, label })
  }
}

/** Every file of the three data packages (their `package.json` and `LICENSE` aside). */
export function packageFiles(): CorpusFile[] {
  const out: CorpusFile[] = []
  for (const pkg of ['vega-datasets', 'world-atlas', 'countries-list'])
    walk(join(MODULES, pkg), pkg, out)
  return out
}

function jsonOf(label: string): unknown {
  return JSON.parse(readFileSync(join(MODULES, label), 'utf8'))
}

/**
 * Files derived from the real data, written into `dir`: NDJSON; a JSONL whose lines each hold
 * 1,000 flights (over 64 KB a line), also without an extension; NDJSON with a minority of
 * truncated and text lines; a CSV with one ragged row; a paged `{ data, total }` wrapper.
 */
export function writeDerivedFiles(dir: string): CorpusFile[] {
  const flights = jsonOf('vega-datasets/data/flights-20k.json') as unknown[]
  const files: Array<[string, string]> = []
  const nd = flights.slice(0, 2000).map((r) => JSON.stringify(r))
  files.push(['flights.ndjson', `${nd.join('\n')}\n`])
  const chunks: string[] = []
  for (let i = 0; i < 20; i++) {
    chunks.push(JSON.stringify({ chunk: i, flights: flights.slice(i * 1000, (i + 1) * 1000) }))
  }
  files.push(['flight-chunks.jsonl', `${chunks.join('\n')}\n`])
  files.push(['flight-chunks', `${chunks.join('\n')}\n`])
  const bad = nd
    .slice(0, 600)
    .map((line, i) =>
      i % 40 === 7
        ? line.slice(0, line.length >> 1)
        : i % 97 === 3
          ? 'ERROR: upstream timeout'
          : line,
    )
  files.push(['flights-some-bad.jsonl', `${bad.join('\n')}\n`])
  const stocks = readFileSync(join(MODULES, 'vega-datasets/data/stocks.csv'), 'utf8').split('\n')
  stocks[10] = `${stocks[10]},extra`
  files.push(['stocks-ragged.csv', stocks.join('\n')])
  const page = { data: flights.slice(0, 500), count: 500, total: flights.length, next: '?page=2' }
  files.push(['flights-page.json', JSON.stringify(page, null, 2)])
  return files.map(([name, text]) => {
    const path = join(dir, name)
    writeFileSync(path, text)
    return { path, label: `derived/${name}` }
  })
}

function isBinary(bytes: Buffer): boolean {
  if (bytes.includes(0)) return true
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes)
    return false
  } catch {
    return true
  }
}

function isMapTruth(value: Record<string, unknown>): boolean {
  const keys = Object.keys(value)
  const values = Object.values(value)
  if (keys.length < 8) return false
  const kinds = new Set(
    values.map((v) => (Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v)),
  )
  if (kinds.size !== 1) return false
  if (kinds.has('object')) {
    const first = new Set(Object.keys(values[0] as object))
    const alike = values.filter((v) => {
      const own = Object.keys(v as object)
      return own.filter((k) => first.has(k)).length * 2 >= Math.max(own.length, first.size)
    })
    return alike.length >= 0.8 * values.length
  }
  return (
    keys.every((k) => /^([A-Z0-9]+|\d+)$/.test(k)) ||
    keys.every((k) => k.length === keys[0]!.length && k.length <= 3)
  )
}

function jsonTruth(value: unknown): Truth {
  if (Array.isArray(value)) {
    const first = value[0]
    const t: Truth = { kind: 'json-array', format: 'json-array', recordCount: value.length }
    if (first && typeof first === 'object' && !Array.isArray(first)) t.fields = Object.keys(first)
    return t
  }
  const obj = value as Record<string, unknown>
  if (isMapTruth(obj)) {
    const n = Object.keys(obj).length
    return { kind: 'map', format: 'json', mapEntries: n, recordCount: n }
  }
  const arrays: Record<string, number> = {}
  let partial = false
  for (const [k, v] of Object.entries(obj)) if (Array.isArray(v)) arrays[k] = v.length
  for (const [k, v] of Object.entries(obj)) {
    const lengths = Object.values(arrays)
    if (/^(total|count)$/.test(k) && typeof v === 'number' && lengths.some((n) => n > 0 && n < v)) {
      partial = true
    }
    if (k === 'next' && typeof v === 'string' && v !== '' && lengths.length > 0) partial = true
  }
  const t: Truth = { kind: 'json-object', format: 'json', keys: Object.keys(obj), arrays }
  if (partial) t.partial = true
  return t
}

/** The truth of a file, by a full parse of its bytes (the extension picks the parser). */
export function truthOf(path: string): Truth {
  const bytes = readFileSync(path)
  if (isBinary(bytes)) return { kind: 'binary', format: 'unknown' }
  const text = bytes.toString('utf8')
  const ext = extname(path).slice(1)
  if (ext === 'json' || ext === 'map') return jsonTruth(JSON.parse(text))
  if (ext === 'jsonl' || ext === 'ndjson' || basename(path) === 'flight-chunks') {
    let records = 0
    let malformed = 0
    let fields: string[] | undefined
    for (const line of text.split(/\r\n|\n|\r/)) {
      if (line.trim() === '') continue
      try {
        const v: unknown = JSON.parse(line)
        if (typeof v !== 'object' || v === null) throw new Error('not a record')
        fields ??= Object.keys(v)
        records++
      } catch {
        malformed++
      }
    }
    const t: Truth = { kind: 'ndjson', format: 'ndjson', recordCount: records }
    if (fields) t.fields = fields
    if (malformed > 0) t.malformedLines = malformed
    return t
  }
  if (ext === 'csv' || ext === 'tsv') {
    const rows = Papa.parse<string[]>(text, {
      delimiter: ext === 'tsv' ? '\t' : ',',
      skipEmptyLines: 'greedy',
    }).data
    const header = rows[0] ?? []
    const ragged = rows.slice(1).filter((r) => r.length !== header.length).length
    const t: Truth = { kind: ext, format: ext, recordCount: rows.length - 1, fields: header }
    if (ragged > 0) t.raggedRows = ragged
    return t
  }
  if (ext === 'md') return { kind: 'markdown', format: 'markdown' }
  // SQL, TypeScript, JavaScript: source code, plain text (never CSV, never markdown)
  return { kind: 'code', format: 'plain-text' }
}

function hasField(fields: readonly string[], name: string): boolean {
  const plain = !/[.[\]"]/.test(name) && name !== ''
  const path = plain ? name : `[${JSON.stringify(name)}]`
  return fields.some((f) => f === path || f.startsWith(`${path}.`) || f.startsWith(`${path}[`))
}

/** What the metadata gets wrong against the truth (empty: fully right). */
export function judge(meta: ContextMetadata, truth: Truth): string[] {
  const wrong: string[] = []
  if (meta.format !== truth.format) return [`format ${meta.format}, expected ${truth.format}`]
  if (truth.recordCount !== undefined && meta.recordCount !== truth.recordCount) {
    wrong.push(`records ${meta.recordCount}, expected ${truth.recordCount}`)
  }
  const fields = meta.fields ?? []
  const full = meta.fieldsTruncated === true
  for (const f of truth.fields ?? []) {
    if (!hasField(fields, f.trim() === '' ? f : f.trim()) && !full) wrong.push(`field ${f} missing`)
  }
  const keys = truth.keys ?? []
  keys.slice(0, Math.min(keys.length, fields.length)).forEach((k, i) => {
    if (fields[i] !== (/[.[\]"]/.test(k) || k === '' ? `[${JSON.stringify(k)}]` : k)) {
      wrong.push(`key ${i} is ${fields[i]}, expected ${k}`)
    }
  })
  if (keys.length > fields.length && !full)
    wrong.push(`${keys.length - fields.length} keys missing`)
  for (const [key, count] of Object.entries(truth.arrays ?? {})) {
    const found = [...(meta.recordArrays ?? []), ...(meta.valueArrays ?? [])].find(
      (a) => a.key === key,
    )
    if (found?.count !== count) wrong.push(`array ${key}: ${found?.count}, expected ${count}`)
  }
  if (truth.mapEntries !== undefined && meta.maps?.[0]?.entries !== truth.mapEntries) {
    wrong.push(`map of ${meta.maps?.[0]?.entries}, expected ${truth.mapEntries}`)
  }
  if ((meta.malformedLines ?? 0) !== (truth.malformedLines ?? 0)) {
    wrong.push(`malformed lines ${meta.malformedLines}, expected ${truth.malformedLines}`)
  }
  if ((meta.raggedRows ?? 0) !== (truth.raggedRows ?? 0)) {
    wrong.push(`ragged rows ${meta.raggedRows}, expected ${truth.raggedRows}`)
  }
  if (truth.partial && !meta.warnings?.some((w) => w.code === 'partial'))
    wrong.push('not flagged partial')
  return wrong
}

/** Right/total per class, and the failures. */
export interface Score {
  byKind: Record<string, { right: number; total: number }>
  right: number
  total: number
  failures: Array<{ label: string; wrong: string[] }>
}

/** Add one judged file to a score. */
export function tally(score: Score, label: string, kind: string, wrong: string[]): void {
  const k = score.byKind[kind] ?? { right: 0, total: 0 }
  score.byKind[kind] = k
  k.total++
  score.total++
  if (wrong.length === 0) {
    k.right++
    score.right++
  } else score.failures.push({ label, wrong })
}

/** An empty score. */
export function emptyScore(): Score {
  return { byKind: {}, right: 0, total: 0, failures: [] }
}

/** The score as a small table, one class a line. */
export function formatScore(title: string, score: Score): string {
  const rows = Object.entries(score.byKind)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([kind, s]) => `  ${kind.padEnd(12)} ${s.right}/${s.total}`)
  return [`${title}: ${score.right}/${score.total} fully right`, ...rows].join('\n')
}
