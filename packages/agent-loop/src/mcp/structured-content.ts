/**
 * What of an MCP result's `structuredContent` the model does not get from its content blocks.
 * Servers are asked to send both (the spec: "a tool that returns structured content SHOULD also
 * return the serialized JSON in a TextContent block"), and some put the very blocks in it (the
 * official filesystem server's `read_media_file` sends the image, then `{ content: [the image] }`),
 * so sending it whole would repeat the result, an image as base64 text.
 */

/** A base64 run this long or longer is binary data, not something to read. */
const BINARY_MIN_CHARS = 128
const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/
const DATA_URL = /^data:[^,]*;base64,/i

type Json = null | boolean | number | string | Json[] | { [k: string]: Json }

const isBinary = (s: string): boolean =>
  DATA_URL.test(s) || (s.length >= BINARY_MIN_CHARS && BASE64.test(s.replace(/\s+/g, '')))

/** Whether `a` and `b` are the same JSON value (key order aside). */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false
  if (Array.isArray(a) !== Array.isArray(b)) return false
  const ka = Object.keys(a)
  const kb = Object.keys(b)
  if (ka.length !== kb.length) return false
  return ka.every((k) => Object.hasOwn(b, k) && sameJson((a as never)[k], (b as never)[k]))
}

/**
 * `value` without what `blocks` carry: values equal to a block, strings a block holds (its text,
 * its base64 data), binary strings (never sent as text), and the containers left empty.
 * `undefined` when nothing is left.
 */
function prune(value: unknown, blocks: readonly unknown[], carried: ReadonlySet<string>): unknown {
  if (typeof value === 'string') return carried.has(value) || isBinary(value) ? undefined : value
  if (typeof value !== 'object' || value === null) return value
  if (blocks.some((b) => sameJson(b, value))) return undefined
  if (Array.isArray(value)) {
    const kept = value.map((v) => prune(v, blocks, carried)).filter((v) => v !== undefined)
    return kept.length > 0 ? kept : undefined
  }
  const kept = Object.entries(value).flatMap(([k, v]) => {
    const p = prune(v, blocks, carried)
    return p === undefined ? [] : [[k, p] as const]
  })
  return kept.length > 0 ? Object.fromEntries(kept) : undefined
}

/** The strings of `value` (its leaves: strings, numbers, booleans), for the text check. */
function leaves(value: unknown): string[] {
  if (value === null || value === undefined) return []
  if (typeof value !== 'object') return [String(value)]
  return Object.values(value).flatMap(leaves)
}

/** Every string a content block holds (text, base64 data, a resource's text or blob). */
function carriedStrings(blocks: readonly unknown[]): Set<string> {
  const out = new Set<string>()
  const walk = (v: unknown): void => {
    if (typeof v === 'string') out.add(v)
    else if (typeof v === 'object' && v !== null) for (const x of Object.values(v)) walk(x)
  }
  for (const b of blocks) walk(b)
  return out
}

/**
 * The JSON text of what `structured` adds to `blocks` (the result's MCP content blocks), or
 * `undefined` when it adds nothing: everything in it is in the blocks already (a block itself,
 * a text, an image's data), it is binary data, or a text block already says every value left.
 */
export function structuredExtra(
  structured: unknown,
  blocks: readonly unknown[],
): string | undefined {
  if (structured === undefined) return undefined
  const left = prune(structured as Json, blocks, carriedStrings(blocks))
  if (left === undefined) return undefined
  const texts = blocks.flatMap((b) =>
    typeof b === 'object' && b !== null && (b as { type?: unknown }).type === 'text'
      ? [String((b as { text?: unknown }).text ?? '')]
      : [],
  )
  if (texts.length > 0 && leaves(left).every((leaf) => texts.some((t) => t.includes(leaf)))) {
    return undefined
  }
  try {
    return JSON.stringify(left)
  } catch {
    return undefined
  }
}
