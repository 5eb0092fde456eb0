import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { StopScanner } from './stop-scanner.js'

/** Feed `text` cut at `cuts`, collect what is released and the stop that matched. */
function scan(stops: string[], text: string, cuts: number[]): { out: string; stop?: string } {
  const scanner = new StopScanner(stops)
  const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b)
  let out = ''
  let from = 0
  for (const at of [...points, text.length]) {
    const r = scanner.push(text.slice(from, at))
    out += r.text
    from = at
    if (r.stop !== undefined) return { out, stop: r.stop }
  }
  const last = scanner.flush()
  return last.stop === undefined
    ? { out: out + last.text }
    : { out: out + last.text, stop: last.stop }
}

/** What a whole-text scan gives: the text cut before the earliest stop (longest on a tie). */
function expected(stops: string[], text: string): { out: string; stop?: string } {
  let best: { at: number; stop: string } | undefined
  for (const s of stops) {
    if (s === '') continue
    const at = text.indexOf(s)
    if (at >= 0 && (!best || at < best.at || (at === best.at && s.length > best.stop.length)))
      best = { at, stop: s }
  }
  return best ? { out: text.slice(0, best.at), stop: best.stop } : { out: text }
}

describe('StopScanner', () => {
  test('cuts before a stop split across chunks and holds back only a possible start', () => {
    const scanner = new StopScanner(['<|im_end|>'])
    expect(scanner.push('Hello <|im')).toEqual({ text: 'Hello ' })
    expect(scanner.push('_en')).toEqual({ text: '' })
    expect(scanner.push('d|>ignored')).toEqual({ text: '', stop: '<|im_end|>' })
    expect(scanner.stopped).toBe('<|im_end|>')
    expect(scanner.push('more')).toEqual({ text: '' })
    expect(scanner.flush()).toEqual({ text: '' })
  })

  test('a match waits while a longer or earlier stop could still complete', () => {
    const scanner = new StopScanner(['b', 'abc'])
    expect(scanner.push('xa')).toEqual({ text: 'x' })
    // "b" is complete, but "abc" (earlier) may still be: wait
    expect(scanner.push('b')).toEqual({ text: '' })
    expect(scanner.push('d')).toEqual({ text: 'a', stop: 'b' })
    const other = new StopScanner(['b', 'abc'])
    expect(other.push('xab')).toEqual({ text: 'x' })
    expect(other.push('c')).toEqual({ text: '', stop: 'abc' })
    const ended = new StopScanner(['b', 'abc'])
    expect(ended.push('xab')).toEqual({ text: 'x' })
    expect(ended.flush()).toEqual({ text: 'a', stop: 'b' })
  })

  test('a false start is released once it cannot be a stop', () => {
    const scanner = new StopScanner(['\nUser:'])
    expect(scanner.push('a\nUs')).toEqual({ text: 'a' })
    expect(scanner.push('ually')).toEqual({ text: '\nUsually' })
    expect(scanner.flush()).toEqual({ text: '' })
  })

  test('property: any chunking releases exactly the text before the earliest stop', () => {
    const alphabet = fc.constantFrom('a', 'b', '<', '|', '>', '\n', 'é', '😀')
    const str = (max: number) => fc.array(alphabet, { maxLength: max }).map((a) => a.join(''))
    fc.assert(
      fc.property(
        fc.array(str(4), { maxLength: 4 }),
        str(40),
        fc.array(fc.nat(), { maxLength: 12 }),
        (stops, text, cuts) => {
          expect(scan(stops, text, cuts)).toEqual(expected(stops, text))
        },
      ),
      { numRuns: 500 },
    )
  })
})
