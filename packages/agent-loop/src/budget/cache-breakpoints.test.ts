import type { Section } from '@contextkit/core'
import { describe, expect, test } from 'vitest'
import { hasStableSystem } from './cache-breakpoints.js'

const section = (id: string, cache: Section['cache'], text = id): Section => ({
  id,
  text,
  priority: 1,
  cache,
})

describe('hasStableSystem', () => {
  test('hasStableSystem: a stable section with text, or tool definitions written into the prompt', () => {
    expect(hasStableSystem([section('a', 'volatile')])).toBe(false)
    expect(hasStableSystem([section('a', 'stable', '')])).toBe(false)
    expect(hasStableSystem([section('a', 'stable')])).toBe(true)
    expect(hasStableSystem([], '<tools/>')).toBe(true)
  })
})
