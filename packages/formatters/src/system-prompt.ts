import type { Section } from '@contextkit/core'
import type { FormattedTextBlock } from './types.js'

/** System blocks, plus the block that should carry a cache marker (end of the stable part). */
export interface SystemParts {
  blocks: FormattedTextBlock[]
  cacheAfter?: FormattedTextBlock
}

/**
 * Render the system prompt. Sections: texts of the stable part (up to the last `stable`
 * section), then `stableSuffix` (e.g. tool definitions), form one block marked for caching;
 * the remaining sections form a second block. Texts are joined by blank lines; empty texts are
 * skipped.
 */
export function buildSystem(
  system: string | readonly Section[] | undefined,
  stableSuffix?: string,
): SystemParts {
  // concatenated, not `Array.join`ed: a join copies the (long, mostly cached) tool text each call
  const join = (parts: Array<string | undefined>): string => {
    let out = ''
    for (const p of parts) if (p !== undefined && p !== '') out = out === '' ? p : `${out}\n\n${p}`
    return out
  }
  if (system === undefined || typeof system === 'string') {
    const text = join([system, stableSuffix])
    return { blocks: text ? [{ type: 'text', text }] : [] }
  }
  let lastStable = -1
  system.forEach((s, i) => {
    if (s.cache === 'stable') lastStable = i
  })
  const stableText = join([...system.slice(0, lastStable + 1).map((s) => s.text), stableSuffix])
  const volatileText = join(system.slice(lastStable + 1).map((s) => s.text))
  const blocks: FormattedTextBlock[] = []
  let cacheAfter: FormattedTextBlock | undefined
  if (stableText) {
    cacheAfter = { type: 'text', text: stableText }
    blocks.push(cacheAfter)
  }
  if (volatileText) blocks.push({ type: 'text', text: volatileText })
  return cacheAfter ? { blocks, cacheAfter } : { blocks }
}

/** The system prompt as one string (text-completion formats). */
export function systemText(
  system: string | readonly Section[] | undefined,
  suffix?: string,
): string {
  return buildSystem(system, suffix)
    .blocks.map((b) => b.text)
    .join('\n\n')
}
