/**
 * Issue 46: `finishCacheMarkers` counts the markers a request carries from the formatter's own
 * count and its two changes (the tools marker, the system marker taken off with `cache: 'off'`),
 * instead of walking every block of the history. Whatever the history, the mode and the format,
 * that count must be the markers really in the request.
 */
import { getModelInfo, type Message, type Section, type ToolDefinition } from '@contextkit/core'
import { type CacheMode, placeCacheBreakpoints } from '@contextkit/core/cache'
import { AnthropicXmlFormatter, type Formatter, NativeFormatter } from '@contextkit/formatters'
import fc from 'fast-check'
import { expect, test } from 'vitest'
import { chatMessage } from '../../../../test-utils/arbitraries.js'
import type { ProviderRequest } from '../provider/contract.js'
import { finishCacheMarkers, hasStableSystem } from './cache-breakpoints.js'

/** Every `cache_control` marker of a request: tools, system, message blocks, tool-result parts. */
function markersIn(request: ProviderRequest): number {
  let n = 0
  for (const t of request.nativeTools ?? []) if (t.cache_control) n++
  for (const b of request.system) if (b.cache_control) n++
  for (const m of request.messages) {
    for (const b of m.content) {
      if ('cache_control' in b && b.cache_control) n++
      if (b.type === 'tool_result') for (const c of b.content) if (c.cache_control) n++
    }
  }
  return n
}

const tool = (name: string): ToolDefinition => ({
  name,
  description: `The ${name} tool.`,
  inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
})
const systems: Section[][] = [
  [],
  [{ id: 'id', text: 'You are terse.', priority: 1, cache: 'stable' }],
  [{ id: 'now', text: 'It is noon.', priority: 1, cache: 'volatile' }],
]
const formatters: Array<() => Formatter> = [
  () => new NativeFormatter(),
  () => new NativeFormatter({ participantMode: 'multiuser' }),
  () => new AnthropicXmlFormatter(),
  () => new AnthropicXmlFormatter({ toolMode: 'native', unsupportedMedia: 'strip' }),
]

test('property: the count finishCacheMarkers sets is the markers the request carries', () => {
  const model = getModelInfo('claude-haiku-4-5')
  let counted = 0
  fc.assert(
    fc.property(
      fc.array(chatMessage, { maxLength: 10 }),
      fc.constantFrom<CacheMode>('auto', 'off'),
      fc.constantFrom(...systems),
      fc.constantFrom(...formatters),
      fc.integer({ min: 0, max: 3 }),
      fc.boolean(),
      fc.nat(),
      (messages: Message[], mode, system, make, tools, longTools, previousAt) => {
        const formatter = make()
        const defs = Array.from({ length: tools }, (_, i) => tool(`t${i}`))
        const toolText = formatter.formatToolDefinitions?.(defs)
        const previous = messages[previousAt % Math.max(1, messages.length)]
        const placement = placeCacheBreakpoints({
          mode,
          messages,
          stableSystem: mode === 'auto' && hasStableSystem(system, toolText),
          toolTokens: toolText === undefined && longTools ? 2_000 : 0,
          ...(previous ? { previous } : {}),
        })
        let request: ProviderRequest
        try {
          const options = { system, tools: defs, model }
          request = {
            ...formatter.buildMessages(placement.messages, options),
            model,
            maxTokens: 100,
          }
        } catch {
          return // a history the format refuses (a second speaker): no request to count
        }
        const breakpoints = finishCacheMarkers(request, mode, placement)
        expect(request.cacheMarkersApplied).toBe(markersIn(request))
        if (request.cacheMarkersApplied > 0) counted++
        if (request.cacheMarkersApplied === 0) expect(breakpoints).toEqual([])
      },
    ),
    { numRuns: 300 },
  )
  // requests with markers come often enough for the property to mean something
  expect(counted).toBeGreaterThan(100)
})
