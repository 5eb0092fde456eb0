/**
 * Skipping JSON text nobody needs to look inside, in native code: a sticky regular expression
 * that matches "balanced content" (strings and nested arrays or objects, up to
 * {@link SKIP_DEPTH} levels) replaces a character-by-character loop over brackets and quotes.
 * It does not validate: like the loop it replaces, it only pairs openers (`{`, `[`) with closers
 * (`}`, `]`) and skips strings (a backslash escapes the next character).
 */
import { RUN, viewOf } from './run-pacer.js'

/** Nesting levels one match can cross; deeper values are entered one level at a time. */
export const SKIP_DEPTH = 8
/** Top-level items per match, so the engine's backtracking stack stays small. */
const MAX_ITEMS = 4096

/** Anything but a quote or a bracket. */
const PLAIN = '[^"{}\\[\\]]*'
/** A string, escapes included. */
const STRING = '"[^"\\\\]*(?:\\\\[^][^"\\\\]*)*"'

function balanced(depth: number, items: string): string {
  const inner = depth === 0 ? STRING : `${STRING}|[{\\[]${balanced(depth - 1, '*')}[}\\]]`
  return `${PLAIN}(?:(?:${inner})${PLAIN})${items}`
}

/**
 * Matches balanced content: plain characters, strings, and values nested at most
 * {@link SKIP_DEPTH} levels. Every alternative starts with a different character (a quote, an
 * opener, or neither), so there is one way to match and failing costs linear time. It always
 * matches (possibly nothing) and stops before the first closer without an opener, an opener
 * whose value is deeper or does not end in the text, or a string that does not end.
 */
const BALANCED = new RegExp(balanced(SKIP_DEPTH, `{0,${MAX_ITEMS}}`), 'y')

/**
 * Where the balanced content starting at `from` ends in `s` (the index of the first character
 * not part of it), or -1 when the regular-expression engine gave up (its stack limit), so the
 * caller reads the rest character by character.
 */
export function balancedEnd(s: string, from: number): number {
  try {
    BALANCED.lastIndex = from
    return BALANCED.test(s) ? BALANCED.lastIndex : from
  } catch {
    return -1
  }
}

/** JSON whitespace as the scanner reads it: any character up to U+0020. */
const SPACE = '[\\x00-\\x20]*'
/** An element's inside: balanced content one level less deep than {@link BALANCED}. */
const INSIDE = balanced(SKIP_DEPTH - 1, '*')

/** The kinds of elements that runs are found for, by their first character. */
export type RunKind = 'object' | 'array' | 'string' | 'number'

/** One element of each kind, as the scanner reads it (a number: up to the next delimiter). */
const ELEMENT: Record<RunKind, string> = {
  object: `\\{${INSIDE}[}\\]]`,
  array: `\\[${INSIDE}[}\\]]`,
  string: STRING,
  number: '[^\\x00-\\x20,:\\]}"{\\[tfn][^\\x00-\\x20,:\\]}]*',
}

function elements(kind: RunKind, count: number): RegExp {
  return new RegExp(`(?:${SPACE}${ELEMENT[kind]}${SPACE},){${count}}`, 'y')
}

const RUNS = Object.fromEntries(
  (Object.keys(ELEMENT) as RunKind[]).map((k) => [k, [elements(k, RUN), elements(k, 8)]]),
) as Record<RunKind, [RegExp, RegExp]>

/** A run of elements found by {@link elementRun}. */
export interface ElementRun {
  /** Elements matched: {@link RUN}, 8, or 0 (none; -1 when the engine gave up). */
  count: number
  /** The index after the last element's comma. */
  end: number
}

/**
 * A run of array elements of one kind from `from` (just after a comma): {@link RUN} or else 8,
 * each followed by a comma, as the scanner would read them one by one (objects and arrays
 * balanced). It reads at most `window` characters (a slice shares the text), so a failed try
 * costs little. Fewer elements, mixed kinds, a value too deep or cut short: `count` 0.
 */
export function elementRun(s: string, from: number, kind: RunKind, window: number): ElementRun {
  const [long, short] = RUNS[kind]
  const { view, at } = viewOf(s, from, window)
  try {
    long.lastIndex = at
    if (long.test(view)) return { count: RUN, end: from + long.lastIndex - at }
    short.lastIndex = at
    if (short.test(view)) return { count: 8, end: from + short.lastIndex - at }
    return { count: 0, end: from }
  } catch {
    return { count: -1, end: from }
  }
}
