/**
 * JSON as Python's `json.dumps(value, ensure_ascii=False)` writes it, which is what chat templates'
 * `tojson` filter produces: `", "` between items and `": "` after keys without `indent`; with
 * `indent`, one item per line (the same as `JSON.stringify` with an indent). Strings are escaped as
 * `JSON.stringify` escapes them.
 */
export function pyJson(value: unknown, indent?: number): string {
  if (indent !== undefined) return JSON.stringify(value, null, indent) ?? 'null'
  return compact(value)
}

function compact(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null'
  if (Array.isArray(value))
    return `[${value.map((v) => compact(v === undefined ? null : v)).join(', ')}]`
  const entries = Object.entries(value as Record<string, unknown>).filter(
    ([, v]) => v !== undefined && typeof v !== 'function',
  )
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}: ${compact(v)}`).join(', ')}}`
}
