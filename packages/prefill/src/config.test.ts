import { ValidationError } from '@contextkit/core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parsePrefillConfig } from './config.js'

describe('parsePrefillConfig', () => {
  it('applies documented defaults', () => {
    expect(parsePrefillConfig()).toEqual({
      enabled: true,
      file: 'PREFILL.md',
      ephemeral: true,
      steps: 'first',
      onUnsupported: 'instruct',
      perModel: true,
      dynamic: true,
      timeoutMs: 1000,
      maxBytes: 65_536,
    })
    expect(parsePrefillConfig(null).file).toBe('PREFILL.md')
  })

  it("takes steps 'every' (the design's injection on every call) and refuses other values", () => {
    expect(parsePrefillConfig({ steps: 'every' }).steps).toBe('every')
    expect(() => parsePrefillConfig({ steps: 'all' })).toThrow(ValidationError)
  })

  it('accepts the seed config shape', () => {
    const config = parsePrefillConfig({ enabled: true, file: 'PREFILL.md', ephemeral: true })
    expect(config.onUnsupported).toBe('instruct')
    expect(parsePrefillConfig({ onUnsupported: 'error', file: 'a/b.txt' })).toMatchObject({
      onUnsupported: 'error',
      file: 'a/b.txt',
    })
  })

  it.each([
    ['..\\secret.md'],
    ['a\\..\\..\\x'],
    ['C:foo'],
    ['C:\\Users\\x\\PREFILL.md'],
    ['\\\\server\\share\\x.md'],
    ['/etc/passwd'],
    ['../outside.mjs'],
    ['a/../../x.md'],
    ['CON.md'],
    ['notes.md:stream'],
    ['dir/'],
  ])('refuses a file outside the workspace on any OS: %s', (file) => {
    expect(() => parsePrefillConfig({ file })).toThrow(ValidationError)
  })

  it('names every bad field in a ValidationError', () => {
    let caught: unknown
    try {
      parsePrefillConfig({ enabled: 'yes', onUnsupported: 'explode', file: '../x', extra: 1 })
    } catch (error) {
      caught = error
    }
    expect(ValidationError.isInstance(caught)).toBe(true)
    const paths = (caught as ValidationError).issues.map((i) => i.path).sort()
    expect(paths).toEqual(['(root)', 'enabled', 'file', 'onUnsupported'])
  })

  it('only accepts files inside the workspace', () => {
    for (const file of ['', '/abs.md', '..', '../a.md', 'a/../../b.md', 'dir/', '.', 'a\0b']) {
      expect(() => parsePrefillConfig({ file })).toThrow(ValidationError)
    }
    for (const file of ['PREFILL.md', 'a/b/c.md', './x.md', 'a/../b.md', '.hidden']) {
      expect(parsePrefillConfig({ file }).file).toBe(file)
    }
  })

  it('property: any input either parses or throws a ValidationError', () => {
    fc.assert(
      fc.property(fc.anything(), (input) => {
        try {
          const config = parsePrefillConfig(input)
          expect(typeof config.enabled).toBe('boolean')
        } catch (error) {
          expect(ValidationError.isInstance(error)).toBe(true)
        }
      }),
    )
  })
})
