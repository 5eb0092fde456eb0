import { describe, expect, test } from 'vitest'
import { randomId } from './random-id.js'

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

describe('randomId', () => {
  test('is a v4 UUID from globalThis.crypto, different each call', () => {
    const ids = new Set(Array.from({ length: 200 }, () => randomId()))
    expect(ids.size).toBe(200)
    for (const id of ids) expect(id).toMatch(UUID_V4)
  })

  test('builds a v4 UUID from getRandomValues where randomUUID is missing (plain-http pages)', () => {
    const original = globalThis.crypto.randomUUID
    const webCrypto = globalThis.crypto as { randomUUID?: unknown }
    Object.defineProperty(webCrypto, 'randomUUID', { value: undefined, configurable: true })
    try {
      const ids = new Set(Array.from({ length: 200 }, () => randomId()))
      expect(ids.size).toBe(200)
      for (const id of ids) expect(id).toMatch(UUID_V4)
    } finally {
      Object.defineProperty(webCrypto, 'randomUUID', { value: original, configurable: true })
      delete webCrypto.randomUUID
    }
    expect(randomId()).toMatch(UUID_V4)
  })
})
