/**
 * JSON and NDJSON detection on a bounded prefix. The prefix may end mid-value; only values that
 * are complete inside it are parsed.
 */
import { FieldCollector, fieldPath } from './fields.js'
import { jsonPrefix } from './json-prefix.js'
import { isRecordObject, skipWs, splitLines, truncate } from './text-utils.js'

/** Limits used while sniffing. */
export interface SniffLimits {
  maxSampleRecords: number
  maxFields: number
  sampleChars: number
}

/** What JSON sniffing found. */
export interface JsonSniff {
  format: 'json' | 'json-array'
  /** `true` when the prefix is not the whole content: a second document may follow (NDJSON). */
  open: boolean
  fields?: string[]
  fieldsTruncated?: boolean
  sampleRecord?: string
  /** Fields of the record arrays under the root object's keys (by key path). */
  arrayFields?: Map<string, string[]>
}

/** What NDJSON sniffing found. */
export interface NdjsonSniff {
  /** Complete records seen in the prefix. */
  records: number
  /** Sampled non-blank lines that were not a JSON object or array. */
  badLines?: number
  /**
   * Of those, lines that start with `{`/`[` and end with `}`/`]` yet do not parse: the whole-
   * input count (by first and last character) cannot see them, so they are added to it.
   */
  hiddenBadLines?: number
  fields?: string[]
  fieldsTruncated?: boolean
  sampleRecord?: string
}

/** Index just after the string whose content starts at `from`, or -1 if it does not end. */
function stringEnd(t: string, from: number): number {
  let p = from
  for (;;) {
    const j = t.indexOf('"', p)
    if (j === -1) return -1
    let k = j - 1
    while (k >= from && t.charCodeAt(k) === 92) k--
    if (((j - 1 - k) & 1) === 0) return j + 1
    p = j + 1
  }
}

/** Index just after the value starting at `i`, or -1 when it runs past the end of `t`. */
function valueEnd(t: string, i: number, complete: boolean): number {
  const c = t.charCodeAt(i)
  if (c === 34) return stringEnd(t, i + 1)
  if (c === 123 || c === 91) {
    let depth = 0
    for (let p = i; p < t.length; p++) {
      const ch = t.charCodeAt(p)
      if (ch === 34) {
        const e = stringEnd(t, p + 1)
        if (e < 0) return -1
        p = e - 1
      } else if (ch === 123 || ch === 91) depth++
      else if (ch === 125 || ch === 93) {
        depth--
        if (depth === 0) return p + 1
      }
    }
    return -1
  }
  for (let p = i; p < t.length; p++) {
    const ch = t.charCodeAt(p)
    if (ch === 44 || ch === 125 || ch === 93 || ch <= 32) return p
  }
  return complete ? t.length : -1
}

function tryParse(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown }
  } catch {
    return { ok: false }
  }
}

/** Complete element texts of the array opening at `open` (at most `max`). */
function arrayElements(t: string, open: number, max: number, complete: boolean): string[] {
  const out: string[] = []
  let p = open + 1
  while (out.length < max) {
    p = skipWs(t, p)
    if (p < 0 || t.charCodeAt(p) === 93) break
    const e = valueEnd(t, p, complete)
    if (e < 0) break
    out.push(t.slice(p, e))
    p = skipWs(t, e)
    if (p < 0 || t.charCodeAt(p) !== 44) break
    p++
  }
  return out
}

interface Member {
  key: string
  start: number
  /** -1 when the value runs past the prefix. */
  end: number
}

/** Members of the object opening at `open`, as far as the prefix shows them. */
function objectMembers(t: string, open: number, max: number, complete: boolean): Member[] {
  const out: Member[] = []
  let p = open + 1
  while (out.length < max) {
    p = skipWs(t, p)
    if (p < 0 || t.charCodeAt(p) !== 34) break
    const ke = stringEnd(t, p + 1)
    if (ke < 0) break
    const key = tryParse(t.slice(p, ke))
    if (!key.ok || typeof key.value !== 'string') break
    p = skipWs(t, ke)
    if (p < 0 || t.charCodeAt(p) !== 58) break
    const vs = skipWs(t, p + 1)
    if (vs < 0) break
    const ve = valueEnd(t, vs, complete)
    out.push({ key: key.value, start: vs, end: ve })
    if (ve < 0) break
    p = skipWs(t, ve)
    if (p < 0 || t.charCodeAt(p) !== 44) break
    p++
  }
  return out
}

function collect(
  values: unknown[],
  limits: SniffLimits,
): { fields?: string[]; truncated?: boolean } {
  const collector = new FieldCollector(limits.maxFields)
  let any = false
  for (const v of values) {
    if (isRecordObject(v)) any = true
    collector.add(v)
  }
  if (!any) return {}
  const { fields, truncated } = collector.result()
  return truncated ? { fields, truncated } : { fields }
}

/** `true` when a trimmed line starts with `{`/`[` and ends with `}`/`]` (the cheap check). */
export function looksLikeRecord(trimmed: string): boolean {
  const a = trimmed.charCodeAt(0)
  const z = trimmed.charCodeAt(trimmed.length - 1)
  return (a === 123 || a === 91) && (z === 125 || z === 93)
}

/**
 * Sniff NDJSON over the complete non-blank lines of the prefix (up to `maxSampleRecords`):
 * each should parse as a JSON object or array. Bad lines are tolerated while they stay a
 * minority (fewer than the good ones, and at least two good ones) and counted in `badLines`;
 * more, and it is not NDJSON (`undefined`).
 */
export function sniffNdjson(
  text: string,
  complete: boolean,
  limits: SniffLimits,
): NdjsonSniff | undefined {
  const lines = splitLines(text)
  if (!complete) lines.pop()
  const values: unknown[] = []
  let first: string | undefined
  let bad = 0
  let hidden = 0
  for (const line of lines) {
    if (values.length + bad >= limits.maxSampleRecords) break
    const trimmed = line.trim()
    if (trimmed === '') continue
    const c = trimmed.charCodeAt(0)
    const parsed = c === 123 || c === 91 ? tryParse(trimmed) : { ok: false as const }
    if (!parsed.ok || typeof parsed.value !== 'object' || parsed.value === null) {
      bad++
      if (looksLikeRecord(trimmed)) hidden++
      if (bad > 8 && bad > values.length) return undefined
      continue
    }
    first ??= line
    values.push(parsed.value)
  }
  if (values.length === 0 || first === undefined) return undefined
  if (bad > 0 && (values.length < 2 || bad >= values.length)) return undefined
  const { fields, truncated } = collect(values, limits)
  const out: NdjsonSniff = {
    records: values.length,
    sampleRecord: truncate(first, limits.sampleChars),
  }
  if (bad > 0) out.badLines = bad
  if (hidden > 0) out.hiddenBadLines = hidden
  if (fields) out.fields = fields
  if (truncated) out.fieldsTruncated = true
  return out
}

/**
 * Sniff a JSON document (text already without BOM). `complete` says the text is the whole
 * content: then it must parse as a whole; otherwise it must be a valid JSON prefix whose first
 * value does not end before another one starts (that is NDJSON). A root object is described
 * by the whole-input scan later; here only the record arrays it shows in the prefix get their
 * field union.
 */
export function sniffJson(
  text: string,
  complete: boolean,
  limits: SniffLimits,
): JsonSniff | undefined {
  const open = skipWs(text, 0)
  if (open < 0) return undefined
  const c = text.charCodeAt(open)
  if (c !== 91 && c !== 123) return undefined
  let runsOn = false
  if (complete) {
    if (!tryParse(text).ok) return undefined
  } else {
    const state = jsonPrefix(text.slice(open))
    if (state.kind === 'invalid' || (state.kind === 'closed' && state.more)) return undefined
    // Whether another document follows is only known past the prefix.
    runsOn = true
  }
  if (c === 91) {
    const elements = arrayElements(text, open, limits.maxSampleRecords, complete)
    const values: unknown[] = []
    for (const el of elements) {
      const parsed = tryParse(el)
      if (!parsed.ok) return undefined
      values.push(parsed.value)
    }
    const out: JsonSniff = { format: 'json-array', open: runsOn }
    const { fields, truncated } = collect(values, limits)
    if (fields) out.fields = fields
    if (truncated) out.fieldsTruncated = true
    if (elements.length > 0) out.sampleRecord = truncate(elements[0]!, limits.sampleChars)
    return out
  }
  const members = objectMembers(text, open, limits.maxFields + 1, complete)
  const arrayFields = new Map<string, string[]>()
  for (const m of members) {
    if (text.charCodeAt(m.start) !== 91) continue
    const els = arrayElements(text, m.start, limits.maxSampleRecords, complete)
    const values: unknown[] = []
    for (const el of els) {
      const parsed = tryParse(el)
      if (parsed.ok) values.push(parsed.value)
    }
    const { fields } = collect(values, limits)
    if (fields) arrayFields.set(fieldPath(undefined, m.key), fields)
  }
  const out: JsonSniff = { format: 'json', open: runsOn }
  if (arrayFields.size > 0) out.arrayFields = arrayFields
  return out
}
