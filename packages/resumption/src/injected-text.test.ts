import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { INJECTED_END, INJECTED_START, markInjected, stripInjected } from './injected-text.js'

describe('stripInjected', () => {
  test('removes marked blocks and keeps the rest verbatim', () => {
    const text = `before ${markInjected('the injected block')} after`
    expect(stripInjected(text)).toBe('before  after')
  })

  test('an unterminated marker keeps its text (real content is never lost)', () => {
    const text = `keep ${INJECTED_START}this too`
    expect(stripInjected(text)).toBe('keep this too')
    expect(stripInjected(`x${INJECTED_END}y`)).toBe('xy')
  })

  test('removes verbatim echoes and long shared word runs of injected text', () => {
    const injected = 'the tail does not need to be comprehensive it needs to be live'
    const reply =
      'Right. "The tail does not need to be comprehensive, it needs to be live." So now I will write the parser.'
    const out = stripInjected(reply, [injected])
    expect(out).not.toMatch(/comprehensive/)
    expect(out).toContain('So now I will write the parser.')
    expect(out.startsWith('Right.')).toBe(true)
  })

  test('short shared phrases (under minWords) are kept', () => {
    const out = stripInjected('we need to be live here', ['it needs to be live now and always'])
    expect(out).toBe('we need to be live here')
  })

  test('property: text sharing no words with the injected texts is unchanged', () => {
    const word = fc.stringMatching(/^[a-m]{1,6}$/)
    const other = fc.stringMatching(/^[n-z]{1,6}$/)
    fc.assert(
      fc.property(
        fc.array(word, { maxLength: 60 }),
        fc.array(fc.array(other, { minLength: 1, maxLength: 30 }), { maxLength: 4 }),
        (ws, injected) => {
          const text = ws.join(' ')
          expect(
            stripInjected(
              text,
              injected.map((i) => i.join(' ')),
            ),
          ).toBe(text)
        },
      ),
    )
  })

  test('a block whose text holds a closing marker does not end early (regression)', () => {
    const inner = `half${INJECTED_END} the rest`
    expect(stripInjected(`x ${markInjected(inner)} y`)).toBe('x  y')
  })

  test('property: a marked block inside any text never survives', () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.string({ minLength: 1, unit: fc.constantFrom('a', ' ', '\u2063', '\u2064', 'é') }),
        fc.string(),
        (a, inner, b) => {
          // the marker characters are reserved in the surrounding text; the block may hold anything
          fc.pre(!`${a}${b}`.includes('\u2063') && !`${a}${b}`.includes('\u2064'))
          expect(stripInjected(`${a}${markInjected(inner)}${b}`)).toBe(`${a}${b}`)
        },
      ),
    )
  })
})
