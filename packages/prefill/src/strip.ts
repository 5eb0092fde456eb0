import type { ContentBlock, Message } from '@contextkit/core'
import { assertString, invalidArgument, isSpace } from '@contextkit/core'
import { checkContent } from './guards.js'

/** How a prefill was found at the start of a reply. */
export type PrefillMatch = 'exact' | 'normalized' | 'none'

/** Result of {@link matchPrefill}. */
export interface PrefillMatchResult {
  /** How the start of the reply matched the prefill (`exact`, `normalized` or `none`). */
  match: PrefillMatch
  /** Index in the response just after the matched prefill (0 when `none`). */
  end: number
}

/** End of a whitespace-normalized match of `prefix` at the start of `text`, or -1. */
function normalizedEnd(text: string, prefix: string): number {
  let j = 0
  while (j < text.length && isSpace(text.charCodeAt(j))) j++
  let i = 0
  while (i < prefix.length && isSpace(prefix.charCodeAt(i))) i++
  while (i < prefix.length) {
    const p = prefix.charCodeAt(i)
    if (isSpace(p)) {
      while (i < prefix.length && isSpace(prefix.charCodeAt(i))) i++
      if (i === prefix.length) break
      if (j >= text.length || !isSpace(text.charCodeAt(j))) return -1
      while (j < text.length && isSpace(text.charCodeAt(j))) j++
      continue
    }
    if (j >= text.length || text.charCodeAt(j) !== p) return -1
    i++
    j++
  }
  return j
}

/**
 * Find `prefill` (trimmed) at the start of `response`: an exact prefix first, then a match where
 * any run of whitespace equals any other non-empty run (leading whitespace of the response is
 * ignored). A blank prefill never matches.
 */
export function matchPrefill(response: string, prefill: string | undefined): PrefillMatchResult {
  assertString(response, 'matchPrefill', 'response')
  assertString(prefill, 'matchPrefill', 'prefill', true)
  const p = prefill?.trim() ?? ''
  if (p === '') return { match: 'none', end: 0 }
  if (response.startsWith(p)) return { match: 'exact', end: p.length }
  const end = normalizedEnd(response, p)
  return end < 0 ? { match: 'none', end: 0 } : { match: 'normalized', end }
}

/**
 * Remove the prefill from the start of a reply: exact prefix first, then a whitespace-normalized
 * match; the rest loses its leading whitespace. When the prefill is not there (the model may
 * ignore it, and a native-prefill reply usually continues after it), the response is returned
 * unchanged.
 */
export function stripPrefillFromResponse(response: string, prefill: string | undefined): string {
  assertString(response, 'stripPrefillFromResponse', 'response')
  assertString(prefill, 'stripPrefillFromResponse', 'prefill', true)
  const { match, end } = matchPrefill(response, prefill)
  return match === 'none' ? response : response.slice(end).trimStart()
}

/** Result of {@link stripPrefillFromContent}. */
export interface StrippedContent {
  /** New content (the input is not mutated); identical blocks when nothing matched. */
  content: ContentBlock[]
  /** How the start of the reply matched the prefill (`exact`, `normalized` or `none`). */
  match: PrefillMatch
  /** Text of the first text block before stripping (`''` when there is none). */
  original: string
  /** Text of the first text block after stripping. */
  stripped: string
}

/**
 * Strip the prefill from structured content: only the first text block is looked at (thinking
 * blocks before it and tool calls after it are left alone). A text block left empty is removed,
 * since the API rejects empty text blocks.
 */
export function stripPrefillFromContent(
  content: readonly ContentBlock[],
  prefill: string | undefined,
): StrippedContent {
  checkContent(content, 'stripPrefillFromContent', 'content')
  assertString(prefill, 'stripPrefillFromContent', 'prefill', true)
  const index = content.findIndex((b) => b.type === 'text')
  const block = content[index]
  if (block?.type !== 'text') {
    return { content: [...content], match: 'none', original: '', stripped: '' }
  }
  const { match, end } = matchPrefill(block.text, prefill)
  if (match === 'none') {
    return { content: [...content], match, original: block.text, stripped: block.text }
  }
  const stripped = block.text.slice(end).trimStart()
  const out = [...content]
  if (stripped === '') out.splice(index, 1)
  else out[index] = { ...block, text: stripped }
  return { content: out, match, original: block.text, stripped }
}

/** {@link stripPrefillFromContent} on a message, keeping every other field. */
export function stripPrefillFromMessage<M extends Message>(
  message: M,
  prefill: string | undefined,
): M {
  if (typeof message !== 'object' || message === null) {
    invalidArgument('stripPrefillFromMessage', 'message', 'a message')
  }
  const { content, match } = stripPrefillFromContent(message.content, prefill)
  return match === 'none' ? message : { ...message, content }
}

/**
 * The opposite of stripping, for non-ephemeral prefills: make the first text block begin with
 * the prefill when it does not already (a native-prefill reply continues after the prefill, so
 * the saved message would otherwise miss it). Thinking blocks stay first.
 */
export function ensurePrefillInContent(
  content: readonly ContentBlock[],
  prefill: string | undefined,
): ContentBlock[] {
  checkContent(content, 'ensurePrefillInContent', 'content')
  assertString(prefill, 'ensurePrefillInContent', 'prefill', true)
  const p = prefill?.trimEnd() ?? ''
  if (p.trim() === '') return [...content]
  const index = content.findIndex((b) => b.type === 'text')
  const block = content[index]
  if (block?.type === 'text') {
    if (matchPrefill(block.text, p).match !== 'none') return [...content]
    const out = [...content]
    out[index] = { ...block, text: p + block.text }
    return out
  }
  const at = content.findIndex((b) => b.type !== 'thinking')
  const out = [...content]
  out.splice(at < 0 ? out.length : at, 0, { type: 'text', text: p })
  return out
}
