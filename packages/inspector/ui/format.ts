// Numbers and times as the page writes them.

const numbers = new Intl.NumberFormat('en-US')

/** `12,345`. */
export function n(value: number | null | undefined): string {
  return value === null || value === undefined ? '–' : numbers.format(value)
}

/** `$0.0123`, or `–` when the model has no prices. */
export function usd(value: number | null | undefined): string {
  return value === null || value === undefined ? '–' : `$${value.toFixed(4)}`
}

/** `42 %` of `whole`. */
export function pct(part: number, whole: number): string {
  return whole > 0 ? `${((part / whole) * 100).toFixed(1)} %` : '–'
}

/** A time as `2026-03-01 09:00:00`. */
export function when(iso: string | null): string {
  if (!iso) return '–'
  const d = new Date(iso)
  return Number.isNaN(d.getTime()) ? iso : d.toISOString().replace('T', ' ').slice(0, 19)
}

/** `1.2 s` or `340 ms`. */
export function ms(value: number | null): string {
  if (value === null) return '–'
  return value >= 1000 ? `${(value / 1000).toFixed(1)} s` : `${Math.round(value)} ms`
}

/** Words for a state. */
export const STATE_WORDS: Record<string, string> = {
  running: 'running',
  awaiting_approval: 'awaiting approval',
  ended: 'ended',
  error: 'error',
}
