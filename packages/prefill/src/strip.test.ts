import type { ContentBlock } from '@contextkit/core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  ensurePrefillInContent,
  matchPrefill,
  stripPrefillFromContent,
  stripPrefillFromMessage,
  stripPrefillFromResponse,
} from './strip.js'

const WS = [' ', '\n', '\t', '\r\n', '  ', '\u00a0', ' \n ']
const wsArb = fc
  .array(fc.constantFrom(...WS), { minLength: 1, maxLength: 3 })
  .map((a) => a.join(''))
const wordArb = fc
  .string({ minLength: 1, maxLength: 8 })
  .filter((s) => s.trim() === s && !/\s/.test(s))

describe('stripPrefillFromResponse', () => {
  it('strips an exact prefix and the whitespace after it', () => {
    expect(stripPrefillFromResponse('Let me think. The answer is 4.', 'Let me think.')).toBe(
      'The answer is 4.',
    )
    expect(stripPrefillFromResponse('Answer:\n\n42', 'Answer:')).toBe('42')
  })

  it('falls back to a whitespace-normalized match', () => {
    const prefill = 'I will analyze\nyour request   step by step.'
    const response = '  I will  analyze your\trequest step\n\nby step. First, ...'
    expect(matchPrefill(response, prefill).match).toBe('normalized')
    expect(stripPrefillFromResponse(response, prefill)).toBe('First, ...')
  })

  it('returns the response unchanged when the prefill is not there', () => {
    expect(stripPrefillFromResponse('Sure! 4.', 'Let me think.')).toBe('Sure! 4.')
    expect(stripPrefillFromResponse('Let me', 'Let me think.')).toBe('Let me')
    expect(stripPrefillFromResponse('Letme think.', 'Let me think.')).toBe('Letme think.')
    expect(stripPrefillFromResponse('anything', undefined)).toBe('anything')
    expect(stripPrefillFromResponse('anything', '   ')).toBe('anything')
  })

  it('property: prefill + whitespace + rest strips to rest without leading whitespace', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), wsArb, fc.string(), (raw, sep, rest) => {
        const prefill = raw.trim()
        fc.pre(prefill !== '')
        expect(stripPrefillFromResponse(prefill + sep + rest, prefill)).toBe(rest.trimStart())
      }),
    )
  })

  it('property: any re-spacing of the prefill words still strips', () => {
    fc.assert(
      fc.property(
        fc.array(wordArb, { minLength: 1, maxLength: 6 }),
        fc.array(wsArb, { minLength: 6, maxLength: 6 }),
        fc.array(wsArb, { minLength: 6, maxLength: 6 }),
        wordArb,
        (words, seps1, seps2, tail) => {
          const prefill = words.map((w, i) => (i === 0 ? w : seps1[i]! + w)).join('')
          const spoken = seps2[0]! + words.map((w, i) => (i === 0 ? w : seps2[i]! + w)).join('')
          expect(stripPrefillFromResponse(`${spoken} ${tail}`, prefill)).toBe(tail)
        },
      ),
    )
  })

  it('property: without a match the response is returned as is', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (response, prefill) => {
        const { match } = matchPrefill(response, prefill)
        const out = stripPrefillFromResponse(response, prefill)
        if (match === 'none') expect(out).toBe(response)
        else expect(response.endsWith(out)).toBe(true)
      }),
    )
  })
})

describe('structured content', () => {
  const toolCall: ContentBlock = { type: 'tool_call', id: 't1', name: 'search', input: { q: 'x' } }

  it('strips from the first text block only, leaving thinking and tool calls alone', () => {
    const content: ContentBlock[] = [
      { type: 'thinking', thinking: 'Let me think. hmm', signature: 'sig' },
      { type: 'text', text: 'Let me think. I will search.' },
      toolCall,
      { type: 'text', text: 'Let me think. again' },
    ]
    const result = stripPrefillFromContent(content, 'Let me think.')
    expect(result.match).toBe('exact')
    expect(result.original).toBe('Let me think. I will search.')
    expect(result.stripped).toBe('I will search.')
    expect(result.content).toEqual([
      content[0],
      { type: 'text', text: 'I will search.' },
      toolCall,
      content[3],
    ])
    expect(content[1]).toEqual({ type: 'text', text: 'Let me think. I will search.' })
  })

  it('removes a text block left empty, and handles content without text', () => {
    const result = stripPrefillFromContent(
      [{ type: 'text', text: 'Let me think.  ' }, toolCall],
      'Let me think.',
    )
    expect(result.content).toEqual([toolCall])
    expect(stripPrefillFromContent([toolCall], 'x')).toEqual({
      content: [toolCall],
      match: 'none',
      original: '',
      stripped: '',
    })
  })

  it('stripPrefillFromMessage keeps the other fields and the same object when unmatched', () => {
    const msg = {
      role: 'assistant' as const,
      content: [{ type: 'text' as const, text: 'Plan: do it' }],
      stopReason: 'end_turn' as const,
      usage: { input: 1, output: 2, cacheRead: 0, cacheWrite: 0 },
    }
    expect(stripPrefillFromMessage(msg, 'Plan:')).toEqual({
      ...msg,
      content: [{ type: 'text', text: 'do it' }],
    })
    expect(stripPrefillFromMessage(msg, 'Other')).toBe(msg)
  })

  it('ensurePrefillInContent prepends a missing prefill and leaves a present one', () => {
    expect(ensurePrefillInContent([{ type: 'text', text: ' 42' }], 'Answer:')).toEqual([
      { type: 'text', text: 'Answer: 42' },
    ])
    expect(ensurePrefillInContent([{ type: 'text', text: 'Answer: 42' }], 'Answer:')).toEqual([
      { type: 'text', text: 'Answer: 42' },
    ])
    const thinking: ContentBlock = { type: 'thinking', thinking: 't' }
    expect(ensurePrefillInContent([thinking, toolCall], 'Answer:')).toEqual([
      thinking,
      { type: 'text', text: 'Answer:' },
      toolCall,
    ])
  })
})
