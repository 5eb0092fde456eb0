/** The shape a {@link JsonShapeScanner} reports, its caps, and the character classes it reads. */
import type { RunKind } from './json-skip.js'

/** Kinds of JSON values as bits, so a container can collect the kinds of its children. */
export const KIND = { object: 1, array: 2, string: 4, number: 8, boolean: 16, null: 32 } as const

/** What the scan learned about one container (the root, or a top-level member's value). */
export interface ContainerShape {
  /** Children: members of an object, elements of an array. */
  count: number
  /** Bit mask of the children's kinds ({@link KIND}). */
  kinds: number
  /** Keys of an object, in order (at most {@link MAX_KEYS}). */
  keys: string[]
  /** Keys of the first object child (the reference shape), when there is one. */
  ref?: string[]
  /** Object children compared with the reference shape (at most {@link SHAPE_SAMPLE}). */
  objChildren: number
  /** Of those, how many share at least half their keys with the reference. */
  similar: number
  /** Raw text of the first child (at most {@link CAPTURE_CHARS}), when captured. */
  first?: string
  /** `true` when `first` was cut at the cap. */
  firstCut?: boolean
  /** The object's first key as text (to show `"AD": {...}`), when it is an object. */
  firstKey?: string
}

/** One top-level member of a root object. */
export interface TopMember {
  key: string
  /** Kind of its value ({@link KIND}). */
  kind: number
  /** The value's shape, for objects and arrays. */
  shape?: ContainerShape
  /** Raw text of a scalar value (at most 64 characters). */
  scalar?: string
}

/** Result of a {@link JsonShapeScanner}. */
export interface ShapeScan {
  /** Kind of the first root value (0 when none started). */
  rootKind: number
  /** Root values started: 1, or 2 meaning "more than one document". */
  rootValues: number
  /** `true` once the first root value has ended. */
  rootClosed: boolean
  /** Shape of the root container. */
  root: ContainerShape
  /** Top-level members of a root object, at most {@link MAX_MEMBERS}. */
  members: TopMember[]
}

/** Keys kept per object. */
export const MAX_KEYS = 128
/** Top-level members kept with their details (the rest are only counted by the root). */
export const MAX_MEMBERS = 256
/** Children compared with the first one's shape. */
export const SHAPE_SAMPLE = 64
/** Characters kept of a first child. */
export const CAPTURE_CHARS = 16384

/** Index of the closing quote of the string whose content starts at `from`, or -1. */
export function closingQuote(s: string, from: number, escaped: boolean): number {
  let p = from
  if (escaped) p++
  for (;;) {
    const j = s.indexOf('"', p)
    if (j === -1) return -1
    let k = j - 1
    while (k >= from && s.charCodeAt(k) === 92) k--
    const run = j - 1 - k
    // an escape carried over from the previous chunk counts as one more backslash before `from`
    if (((run + (escaped && k < from ? 1 : 0)) & 1) === 0) return j
    p = j + 1
  }
}

/** `true` when `s` ends in an odd run of backslashes (the next character is escaped). */
export function endsInOddBackslashes(s: string, from: number, escaped: boolean): boolean {
  let k = s.length - 1
  while (k >= from && s.charCodeAt(k) === 92) k--
  const run = s.length - 1 - k + (escaped && k < from ? 1 : 0)
  return (run & 1) === 1
}

/** An empty container shape. */
export function newShape(): ContainerShape {
  return { count: 0, kinds: 0, keys: [], objChildren: 0, similar: 0 }
}

/** The kind ({@link KIND}) of the value a character starts. */
export function kindOf(c: number): number {
  if (c === 123) return KIND.object
  if (c === 91) return KIND.array
  if (c === 34) return KIND.string
  if (c === 116 || c === 102) return KIND.boolean
  if (c === 110) return KIND.null
  return KIND.number
}

/** The kind of element a run may hold, by its first character (booleans and null: none). */
export function runKindOf(c: number): RunKind | undefined {
  if (c === 123) return 'object'
  if (c === 91) return 'array'
  if (c === 34) return 'string'
  if (c === 116 || c === 102 || c === 110 || isScalarEnd(c)) return undefined
  return 'number'
}

/** `true` for a character that ends a number, `true`, `false` or `null` token. */
export function isScalarEnd(c: number): boolean {
  return c <= 32 || c === 44 || c === 93 || c === 125 || c === 58
}
