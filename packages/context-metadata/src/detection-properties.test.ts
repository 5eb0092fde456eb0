import fc from 'fast-check'
import Papa from 'papaparse'
import { describe, expect, test } from 'vitest'
import { chunksOf } from '../../../test-utils/chunks.js'
import { analyzeContext } from './analyze-context.js'
import { jsonPrefix } from './json-prefix.js'
import { JsonShapeScanner } from './json-shape-scanner.js'

const key = fc.string({
  unit: fc.constantFrom('a', 'b', 'z', '_', '1', 'é', '"', '\\'),
  minLength: 1,
  maxLength: 6,
})
const record = fc.dictionary(key, fc.jsonValue({ maxDepth: 2 }), { minKeys: 1, maxKeys: 6 })
const sniffChars = fc.integer({ min: 16, max: 400 })

describe('format detection invariants', () => {
  test('property: the shape scan is the same for any chunking of the text', () => {
    fc.assert(
      fc.property(
        fc.jsonValue({ maxDepth: 5 }),
        fc.constantFrom(undefined, 1, 2),
        fc.array(fc.nat(), { maxLength: 8 }),
        (value, indent, cuts) => {
          const text = JSON.stringify(value, null, indent)
          const whole = new JsonShapeScanner()
          whole.push(text)
          const parts = new JsonShapeScanner()
          for (const c of chunksOf(text, cuts)) parts.push(c)
          expect(parts.result()).toEqual(whole.result())
        },
      ),
      { numRuns: 400 },
    )
  })

  test('property: every cut of a JSON document is a valid open prefix; the whole is closed', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.array(fc.jsonValue({ maxDepth: 3 })), record),
        fc.constantFrom(undefined, 2),
        fc.nat(),
        (value, indent, cut) => {
          const text = JSON.stringify(value, null, indent)
          const k = cut % text.length
          // a cut inside or right after the first value: open (or, at its very end, closed)
          const state = jsonPrefix(text.slice(0, k))
          expect(state.kind).not.toBe('invalid')
          expect(jsonPrefix(text)).toEqual({ kind: 'closed', end: text.length, more: false })
          expect(jsonPrefix(`${text}\n${text}`)).toMatchObject({ kind: 'closed', more: true })
        },
      ),
      { numRuns: 200 },
    )
  })

  test('property: line length never changes the format; records are counted exactly', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(record, fc.nat(600)), { minLength: 1, maxLength: 8 }),
        sniffChars,
        fc.constantFrom(undefined, 'x.jsonl'),
        (rows, sniff, name) => {
          const lines = rows.map(([r, pad]) => JSON.stringify({ ...r, pad: 'p'.repeat(pad) }))
          const text = `${lines.join('\n')}\n`
          const meta = analyzeContext(text, name, { sniffChars: sniff })
          if (rows.length === 1 && name === undefined) {
            // one document alone is JSON (or NDJSON): never anything else
            expect(['json', 'ndjson']).toContain(meta.format)
            return
          }
          expect(meta.format).toBe('ndjson')
          expect(meta.recordCount).toBe(rows.length)
          expect(meta.malformedLines).toBeUndefined()
          expect(meta.fields).toContain('pad')
        },
      ),
      { numRuns: 300 },
    )
  })

  test('property: a minority of bad lines keeps NDJSON and is counted', () => {
    const bad = fc.oneof(
      fc.constantFrom('ERROR: disk full', 'null', '42', '"text"', '{"cut": "off'),
      fc.string({ unit: fc.constantFrom('a', ' ', ',', ':'), minLength: 1, maxLength: 20 }),
    )
    fc.assert(
      fc.property(
        fc.array(record, { minLength: 3, maxLength: 20 }),
        fc.array(fc.tuple(bad, fc.nat()), { maxLength: 8 }),
        (good, bads) => {
          fc.pre(bads.filter(([b]) => b.trim() !== '').length * 2 < good.length)
          const lines = good.map((r) => JSON.stringify(r))
          let inserted = 0
          for (const [b, at] of bads) {
            if (b.trim() === '') continue
            lines.splice(at % (lines.length + 1), 0, b)
            inserted++
          }
          const meta = analyzeContext(lines.join('\n'), 'events.jsonl')
          expect(meta.format).toBe('ndjson')
          expect(meta.recordCount).toBe(good.length)
          expect(meta.malformedLines ?? 0).toBe(inserted)
        },
      ),
      { numRuns: 300 },
    )
  })

  test('property: one ragged row keeps CSV and is counted', () => {
    const cell = fc.string({ unit: fc.constantFrom('a', 'b', ' ', '1', ',', '"'), maxLength: 5 })
    fc.assert(
      fc.property(
        fc.array(fc.tuple(cell, fc.nat(99)), { minLength: 4, maxLength: 30 }),
        fc.nat(),
        (rows, at) => {
          const data = rows.map(([s, n]) => [`v${s}`, String(n), 'z'])
          const i = at % data.length
          data[i] = [...data[i]!, 'extra']
          // arrays, not { fields, data }: that form would drop the extra cell
          const text = Papa.unparse([['name', 'count', 'kind'], ...data])
          const meta = analyzeContext(text, 'rows.csv')
          expect(meta.format).toBe('csv')
          expect(meta.recordCount).toBe(rows.length)
          expect(meta.raggedRows).toBe(1)
        },
      ),
      { numRuns: 200 },
    )
  })

  test('property: source code with commas in argument lists is never CSV', () => {
    const id = fc.stringMatching(/^[a-z][a-zA-Z0-9_]{0,8}$/)
    const args = fc.array(id, { minLength: 2, maxLength: 4 }).map((a) => a.join(', '))
    const line = fc.oneof(
      fc.tuple(id, id, args).map(([a, f, x]) => `const ${a} = ${f}(${x})`),
      fc.tuple(id, args).map(([f, x]) => `  ${f}(${x});`),
      fc.tuple(args, id).map(([x, m]) => `import { ${x} } from './${m}.js'`),
      fc.tuple(id, args).map(([f, x]) => `def ${f}(${x}):`),
      fc.tuple(id, args).map(([f, x]) => `    return ${f}(${x})`),
      fc.tuple(id, args).map(([f, x]) => `echo "${f}, ${x}" | tr ',' '\\n'`),
    )
    fc.assert(
      fc.property(fc.array(line, { minLength: 3, maxLength: 30 }), (lines) => {
        const text = `${lines.join('\n')}\n`
        for (const name of [undefined, 'snippet.txt']) {
          expect(['csv', 'tsv']).not.toContain(analyzeContext(text, name).format)
        }
      }),
      { numRuns: 300 },
    )
  })

  test('property: a JSON object reports all its top-level keys first, in order, for any window', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(key, { minLength: 1, maxLength: 40 }),
        fc.array(fc.jsonValue({ maxDepth: 2 }), { minLength: 40, maxLength: 40 }),
        sniffChars,
        (keys, values, sniff) => {
          // written by hand: an object would put integer-like keys first
          const members = keys.map((k, i) => `${JSON.stringify(k)}: ${JSON.stringify(values[i])}`)
          const meta = analyzeContext(`{\n ${members.join(',\n ')}\n}`, 'doc.json', {
            sniffChars: sniff,
          })
          expect(meta.format).toBe('json')
          const top = keys.map((k) => (/[.[\]"]/.test(k) ? `[${JSON.stringify(k)}]` : k))
          if (meta.maps?.[0]?.key === undefined && meta.maps?.length) return // a root map
          expect(meta.fields?.slice(0, top.length)).toEqual(top)
        },
      ),
      { numRuns: 300 },
    )
  })
})
