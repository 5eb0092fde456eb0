/**
 * Turns a {@link ShapeScan} (one pass over the whole JSON text) into metadata: the fields of a
 * root object (top-level keys first, then one level of paths), its record arrays, value arrays
 * and maps keyed by ids, a sample, and a warning when a record array is one page of a list.
 */
import { FieldCollector, fieldPath } from './fields.js'
import { type ContainerShape, KIND, type ShapeScan, type TopMember } from './json-shape.js'
import type { SniffLimits } from './sniff-json.js'
import { truncate } from './text-utils.js'
import type { ContextWarning, ElementKind, JsonMap, RecordArray, ValueArray } from './types.js'

/** The part of the metadata a JSON scan decides. */
export interface JsonDescription {
  fields?: string[]
  fieldsTruncated?: boolean
  recordCount?: number
  sampleRecord?: string
  recordArrays?: RecordArray[]
  valueArrays?: ValueArray[]
  maps?: JsonMap[]
  warnings: ContextWarning[]
}

/** What the prefix sniff adds: field unions of record arrays, and the document's first chars. */
export interface PrefixHints {
  arrayFields?: Map<string, string[]>
  /** The raw start of the document (already cut to the sample length). */
  start: string
}

const MIN_MAP_ENTRIES = 8
const MAX_LISTED = 50
const TOTAL_KEY =
  /^(total|count|total_?count|total_?results|total_?items|total_?hits|num_?results|num_?found|hits|result_?count)$/i
const MORE_KEY =
  /^(next|next_?page|next_?cursor|next_?page_?token|next_?url|next_?link|has_?more|has_?next|more)$/i

/** The kind of the elements whose kinds are the bits in `mask`. */
export function elementKind(mask: number): ElementKind {
  switch (mask) {
    case 0:
      return 'none'
    case KIND.object:
      return 'objects'
    case KIND.array:
      return 'arrays'
    case KIND.string:
      return 'strings'
    case KIND.number:
      return 'numbers'
    case KIND.boolean:
      return 'booleans'
    case KIND.null:
      return 'nulls'
    default:
      return 'mixed'
  }
}

/** `true` when the keys read like ids: numbers, codes of one length, upper-case codes, UUIDs, dates. */
export function idLikeKeys(keys: readonly string[]): boolean {
  if (keys.length === 0) return false
  const all = (re: RegExp) => keys.every((k) => re.test(k))
  if (all(/^-?\d+$/) || all(/^[A-Z0-9][A-Z0-9_.:-]*$/) || all(/^[0-9a-f]{8}-[0-9a-f-]{27}$/i)) {
    return true
  }
  if (all(/^\d{4}-\d{2}(-\d{2})?/) || all(/^[0-9a-f]{12,}$/i)) return true
  const len = keys[0]!.length
  return len <= 12 && keys.every((k) => k.length === len && /^[\w.:-]+$/.test(k))
}

/**
 * A map keyed by ids: at least 8 entries whose values are all of one kind; object values must
 * share their shape (80% of the compared ones), scalar values need id-like keys.
 */
export function isMap(shape: ContainerShape): boolean {
  if (shape.count < MIN_MAP_ENTRIES) return false
  const kind = elementKind(shape.kinds)
  if (kind === 'mixed' || kind === 'none') return false
  if (kind === 'objects') return shape.objChildren > 0 && shape.similar >= 0.8 * shape.objChildren
  return idLikeKeys(shape.keys)
}

function parse(text: string | undefined): { ok: boolean; value?: unknown } {
  if (text === undefined) return { ok: false }
  try {
    return { ok: true, value: JSON.parse(text) as unknown }
  } catch {
    return { ok: false }
  }
}

/**
 * Fields of the records in a container: from its first child when that was captured whole
 * (one level of paths), else the first object child's keys.
 */
export function childFields(shape: ContainerShape, limits: SniffLimits): string[] | undefined {
  const first = shape.firstCut ? { ok: false } : parse(shape.first)
  if (first.ok && typeof first.value === 'object' && first.value !== null) {
    if (!Array.isArray(first.value)) {
      const collector = new FieldCollector(limits.maxFields)
      collector.add(first.value)
      return collector.result().fields
    }
  }
  return shape.ref?.slice(0, limits.maxFields).map((k) => fieldPath(undefined, k))
}

function mapOf(shape: ContainerShape, key: string | undefined, limits: SniffLimits): JsonMap {
  const map: JsonMap = {
    entries: shape.count,
    keyExamples: shape.keys.slice(0, 5),
    values: elementKind(shape.kinds),
  }
  if (key !== undefined) map.key = key
  if (map.values === 'objects') {
    const fields = childFields(shape, limits)
    if (fields && fields.length > 0) map.valueFields = fields
  }
  return map
}

function scalarNumber(m: TopMember): number | undefined {
  if (m.kind !== KIND.number || m.scalar === undefined) return undefined
  const n = Number(m.scalar)
  return Number.isSafeInteger(n) ? n : undefined
}

function morePages(m: TopMember): boolean {
  if (!MORE_KEY.test(m.key)) return false
  if (m.kind === KIND.boolean) return m.scalar === 'true'
  if (m.kind === KIND.string) return m.scalar !== undefined && m.scalar !== '""'
  return m.kind === KIND.number ? (scalarNumber(m) ?? 0) > 0 : m.kind === KIND.object
}

function pageWarning(arrays: RecordArray[], members: TopMember[]): ContextWarning | undefined {
  if (arrays.length === 0) return undefined
  const main = arrays.reduce((a, b) => (b.count > a.count ? b : a))
  for (const m of members) {
    const total = TOTAL_KEY.test(m.key) ? scalarNumber(m) : undefined
    if (total !== undefined && total > main.count) {
      main.declaredTotal = total
      return {
        code: 'partial',
        message: `The array ${JSON.stringify(main.key)} holds ${main.count} records but ${JSON.stringify(m.key)} says ${total}: probably one page of a longer list.`,
      }
    }
  }
  const more = members.find(morePages)
  if (!more) return undefined
  return {
    code: 'partial',
    message: `${JSON.stringify(more.key)} points to more data: the array ${JSON.stringify(main.key)} (${main.count} records) is probably one page of a longer list.`,
  }
}

/** Describe a root JSON object from its scan. */
export function describeObject(
  scan: ShapeScan,
  limits: SniffLimits,
  hints: PrefixHints,
): JsonDescription {
  const root = scan.root
  const out: JsonDescription = { warnings: [] }
  if (isMap(root)) {
    const map = mapOf(root, undefined, limits)
    out.maps = [map]
    out.recordCount = root.count
    if (map.valueFields) out.fields = map.valueFields
    if (root.firstKey !== undefined && root.first !== undefined) {
      out.sampleRecord = truncate(
        `${JSON.stringify(root.firstKey)}: ${root.first}`,
        limits.sampleChars,
      )
    }
    return out
  }
  const top = new FieldCollector(limits.maxFields)
  const paths: string[] = []
  let truncated = root.count > scan.members.length
  const recordArrays: RecordArray[] = []
  const valueArrays: ValueArray[] = []
  const maps: JsonMap[] = []
  for (const m of scan.members) {
    const path = fieldPath(undefined, m.key)
    top.put(path)
    const shape = m.shape
    if (!shape) continue
    if (m.kind === KIND.object) {
      if (isMap(shape)) {
        if (maps.length < MAX_LISTED) maps.push(mapOf(shape, path, limits))
        continue
      }
      for (const k of shape.keys) paths.push(fieldPath(path, k))
      if (shape.keys.length < shape.count) truncated = true
    } else if (shape.kinds === KIND.object) {
      if (recordArrays.length >= MAX_LISTED) continue
      const entry: RecordArray = { key: path, count: shape.count }
      const fields = hints.arrayFields?.get(path) ?? childFields(shape, limits)
      if (fields && fields.length > 0) entry.fields = fields
      recordArrays.push(entry)
    } else if (valueArrays.length < MAX_LISTED) {
      valueArrays.push({ key: path, count: shape.count, elements: elementKind(shape.kinds) })
    }
  }
  for (const p of paths) top.put(p)
  const { fields, truncated: cut } = top.result()
  if (fields.length > 0) out.fields = fields
  if (cut || truncated) out.fieldsTruncated = true
  if (recordArrays.length > 0) out.recordArrays = recordArrays
  if (valueArrays.length > 0) out.valueArrays = valueArrays
  if (maps.length > 0) out.maps = maps
  const warning = pageWarning(recordArrays, scan.members)
  if (warning) out.warnings.push(warning)
  const main =
    recordArrays.length > 0 ? recordArrays.reduce((a, b) => (b.count > a.count ? b : a)) : undefined
  const mainShape =
    main && scan.members.find((m) => fieldPath(undefined, m.key) === main.key)?.shape
  if (mainShape?.first !== undefined)
    out.sampleRecord = truncate(mainShape.first, limits.sampleChars)
  else if (hints.start !== '') out.sampleRecord = hints.start
  return out
}

/** Fields of the first document (NDJSON whose first line is longer than the sniff window). */
export function firstDocumentFields(
  scan: ShapeScan,
  limits: SniffLimits,
): { fields?: string[]; truncated?: boolean } {
  if (scan.rootKind !== KIND.object) return {}
  const collector = new FieldCollector(limits.maxFields)
  for (const m of scan.members) {
    const path = fieldPath(undefined, m.key)
    const keys = m.kind === KIND.object ? (m.shape?.keys ?? []) : []
    if (keys.length === 0) collector.put(path)
    for (const k of keys) collector.put(fieldPath(path, k))
  }
  const { fields, truncated } = collector.result()
  const cut = truncated || scan.root.count > scan.members.length
  return fields.length === 0 ? {} : cut ? { fields, truncated: true } : { fields }
}
