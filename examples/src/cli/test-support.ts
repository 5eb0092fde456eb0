import type { OutputStream } from './terminal.js'

/** A stream that keeps what was written, for tests. */
export interface Collected extends OutputStream {
  text(): string
  lines(): string[]
}

/** An output stream that collects everything written to it (`isTTY` as given). */
export function collector(isTTY = false): Collected {
  const chunks: string[] = []
  return {
    isTTY,
    columns: 120,
    write(text: string) {
      chunks.push(text)
      return true
    },
    text: () => chunks.join(''),
    lines: () => chunks.join('').split('\n'),
  }
}

/** SGR colour sequences (`ESC[…m`). */
export const ANSI_COLOR = /\u001b\[[0-9;]*m/
