import picocolors from 'picocolors'

/** picocolors' colour functions. */
export type Colors = ReturnType<typeof picocolors.createColors>

/** A stream the demo writes to: `process.stdout`, or a test's collector. */
export interface OutputStream {
  write(text: string): unknown
  isTTY?: boolean
  columns?: number
}

/** Where the demo writes, and how. */
export interface Terminal {
  stream: OutputStream
  write(text: string): void
  line(text?: string): void
  /** A real terminal: colours (unless turned off), spinners that redraw. */
  isTTY: boolean
  color: boolean
  /** picocolors functions, switched off when `color` is false. */
  c: Colors
}

/**
 * Colours only on a terminal: `NO_COLOR` (any non-empty value, no-color.org) turns them off,
 * `TERM=dumb` too; `FORCE_COLOR` (not `0`) turns them on anywhere. picocolors alone would also
 * colour piped output whenever `CI` is set, so the decision is made here and passed to
 * `createColors`.
 */
export function shouldUseColor(
  stream: OutputStream,
  env: Readonly<Record<string, string | undefined>>,
): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0') return true
  return stream.isTTY === true && env.TERM !== 'dumb'
}

/** A {@link Terminal} over `stream`, deciding colours with {@link shouldUseColor}. */
export function createTerminal(
  stream: OutputStream,
  env: Readonly<Record<string, string | undefined>>,
): Terminal {
  const color = shouldUseColor(stream, env)
  return {
    stream,
    write: (text) => {
      stream.write(text)
    },
    line: (text = '') => {
      stream.write(`${text}\n`)
    },
    isTTY: stream.isTTY === true && env.TERM !== 'dumb',
    color,
    c: picocolors.createColors(color),
  }
}

/** Thousands with commas, whatever the locale. */
export function num(n: number): string {
  return Math.round(n).toLocaleString('en-US')
}

/** `1.2 s` or `340 ms`. */
export function duration(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`
}
