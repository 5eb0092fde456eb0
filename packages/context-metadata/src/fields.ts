import { assertString } from '@contextkit/core'
import { isRecordObject } from './text-utils.js'

/** One path segment: plain when it has no `.`, `[`, `]` or `"` and is not empty, else `["…"]`. */
function segment(key: string): string {
  return key !== '' && !/[.[\]"]/.test(key) ? key : `[${JSON.stringify(key)}]`
}

/**
 * The dot path of `key` under `parent`: `a.b`; a literal key `a.b` becomes `["a.b"]`, so the
 * path `a` → `b` (written `a.b`) and the literal key (written `["a.b"]`) never collide.
 */
export function fieldPath(parent: string | undefined, key: string): string {
  assertString(parent, 'fieldPath', 'parent', true)
  assertString(key, 'fieldPath', 'key')
  const seg = segment(key)
  if (parent === undefined) return seg
  return seg.startsWith('[') ? parent + seg : `${parent}.${seg}`
}

/** Collects the union of field paths over records, in first-seen order, up to a cap. */
export class FieldCollector {
  private readonly seen = new Set<string>()
  private truncated = false

  /** @param maxFields - cap on distinct fields kept. */
  constructor(private readonly maxFields: number) {}

  /** Add the fields of one record: its keys, and one level of dot paths into nested objects. */
  add(record: unknown): void {
    if (!isRecordObject(record)) return
    for (const [key, value] of Object.entries(record)) {
      if (isRecordObject(value) && Object.keys(value).length > 0) {
        for (const sub of Object.keys(value)) this.put(fieldPath(fieldPath(undefined, key), sub))
      } else {
        this.put(fieldPath(undefined, key))
      }
    }
  }

  /** Add one field name as is. */
  put(name: string): void {
    if (this.seen.has(name)) return
    if (this.seen.size >= this.maxFields) {
      this.truncated = true
      return
    }
    this.seen.add(name)
  }

  /** The fields collected and whether the cap cut some off. */
  result(): { fields: string[]; truncated: boolean } {
    return { fields: [...this.seen], truncated: this.truncated }
  }
}
