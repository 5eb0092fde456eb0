/** Whether `v` is a plain object (not null, not an array): a record of unknown values. */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}
