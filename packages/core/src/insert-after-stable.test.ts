import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { insertAfterStable } from './insert-after-stable.js'
import type { Section } from './sections.js'

const section = (id: string, cache: Section['cache']): Section => ({
  id,
  text: id,
  priority: 1,
  cache,
})

describe('insertAfterStable', () => {
  test('after the last stable section, also when a volatile one sits between stable ones', () => {
    const system = [
      section('a', 'stable'),
      section('b', 'volatile'),
      section('c', 'stable'),
      section('d', 'volatile'),
    ]
    const out = insertAfterStable(system, [section('x', 'volatile'), section('y', 'stable')])
    expect(out.map((s) => s.id)).toEqual(['a', 'b', 'c', 'x', 'y', 'd'])
    expect(system.map((s) => s.id)).toEqual(['a', 'b', 'c', 'd'])
  })

  test('first when there is no stable section; last when all are stable', () => {
    expect(insertAfterStable([section('v', 'volatile')], [section('x', 'stable')])).toEqual([
      section('x', 'stable'),
      section('v', 'volatile'),
    ])
    expect(insertAfterStable([section('s', 'stable')], [section('x', 'volatile')])).toEqual([
      section('s', 'stable'),
      section('x', 'volatile'),
    ])
    expect(insertAfterStable([], [])).toEqual([])
  })

  test('property: everything kept in order; nothing added lands before a stable section', () => {
    const cache = fc.constantFrom<Section['cache']>('stable', 'volatile')
    fc.assert(
      fc.property(fc.array(cache, { maxLength: 8 }), fc.array(cache, { maxLength: 3 }), (a, b) => {
        const system = a.map((c, i) => section(`s${i}`, c))
        const added = b.map((c, i) => section(`x${i}`, c))
        const out = insertAfterStable(system, added)
        expect(out.filter((s) => s.id.startsWith('s'))).toEqual(system)
        expect(out.filter((s) => s.id.startsWith('x'))).toEqual(added)
        const firstAdded = out.findIndex((s) => s.id.startsWith('x'))
        if (firstAdded >= 0) {
          const rest = out.slice(firstAdded + added.length)
          expect(rest.every((s) => s.cache === 'volatile')).toBe(true)
        }
      }),
      { numRuns: 300 },
    )
  })
})
