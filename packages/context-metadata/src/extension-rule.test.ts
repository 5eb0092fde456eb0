import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { analyzeContext } from './analyze-context.js'
import { formatFromExtension } from './detect.js'
import { formatContextHint } from './hint.js'
import type { ContextMetadata } from './types.js'

const ndjson = '{"a":1,"b":"x"}\n{"a":2,"b":"y"}\n{"a":3,"b":"z"}\n'
const csv = 'id,name,city\n1,Ann,Oslo\n2,Bob,Rome\n3,Cy,Lima\n'
const prose =
  'It was a bright cold day in April, and the clocks were striking thirteen.\n' +
  'Winston Smith slipped quickly through the glass doors.\n'

/** What a name says, without the content: the counts and details of the unnamed analysis. */
function details(meta: ContextMetadata) {
  const { format, contentFormat, textKind, fileName, warnings, ...rest } = meta
  return rest
}

describe('a known extension decides the format (seed 001)', () => {
  test('a .txt or .md holding CSV is text, with structured data recorded as such', () => {
    for (const [name, format] of [
      ['data.txt', 'plain-text'],
      ['data.md', 'markdown'],
    ] as const) {
      const meta = analyzeContext(csv, name)
      expect(meta).toMatchObject({
        format,
        contentFormat: 'csv',
        textKind: 'structured',
        recordCount: 3,
        fields: ['id', 'name', 'city'],
      })
      // a text file holds anything: no warning
      expect(meta.warnings).toBeUndefined()
    }
  })

  test('prose in a .txt or .md is prose', () => {
    expect(analyzeContext(prose, 'novel.txt')).toMatchObject({
      format: 'plain-text',
      textKind: 'prose',
    })
    expect(analyzeContext(`# Part one\n\n${prose}`, 'novel.md')).toMatchObject({
      format: 'markdown',
      textKind: 'prose',
    })
    expect(analyzeContext(prose, 'novel.txt').contentFormat).toBeUndefined()
    // without a name too: the field says what plain text holds
    expect(analyzeContext('#!/bin/sh\necho hi\n').textKind).toBe('structured')
  })

  test('an .xml holding NDJSON is XML with a mismatch warning; the counts are the NDJSON ones', () => {
    const meta = analyzeContext(ndjson, 'feed.xml')
    expect(meta).toMatchObject({
      format: 'xml',
      contentFormat: 'ndjson',
      recordCount: 3,
      fields: ['a', 'b'],
    })
    expect(meta.warnings?.map((w) => w.code)).toEqual(['mismatch'])
    expect(meta.warnings?.[0]?.message).toBe('The name says XML, but the content reads as NDJSON.')
  })

  test('<a><b/></a> in an .xml is XML (HTML-looking element names do not change it)', () => {
    const meta = analyzeContext('<a><b/></a>', 'doc.xml')
    expect(meta).toMatchObject({ format: 'xml', rootElement: 'a' })
    expect(meta.contentFormat).toBeUndefined()
    expect(meta.warnings).toBeUndefined()
    // by content alone it still reads as HTML
    expect(analyzeContext('<a><b/></a>').format).toBe('html')
  })

  test('a .json holding prose is unknown with a malformed warning (as the README says)', () => {
    const meta = analyzeContext(prose, 'notes.json')
    expect(meta).toMatchObject({ format: 'unknown', contentFormat: 'plain-text' })
    expect(meta.warnings).toEqual([
      {
        code: 'malformed',
        message: 'The name says JSON, but the content is not JSON (it reads as plain text).',
      },
    ])
  })

  test('a .json holding NDJSON is JSON by name, and the warning says how to parse it', () => {
    const meta = analyzeContext(ndjson, 'data.json')
    expect(meta).toMatchObject({ format: 'json', contentFormat: 'ndjson', recordCount: 3 })
    expect(meta.warnings?.[0]?.message).toContain('parse it line by line')
  })

  test('the hint says what the name says and what the content reads as', () => {
    expect(formatContextHint(analyzeContext(csv, 'data.txt')).split('\n')[2]).toBe(
      '  Format: Plain text, structured: CSV (delimiter ",")',
    )
    const xml = formatContextHint(analyzeContext(ndjson, 'feed.xml')).split('\n')
    expect(xml[2]).toBe(
      '  Format: XML by name; the content reads as NDJSON (newline-delimited JSON)',
    )
    expect(xml).toContain('  Fields: "a", "b"')
    expect(xml.at(-1)).toBe('  Warning: The name says XML, but the content reads as NDJSON.')
    expect(formatContextHint(analyzeContext(prose, 'notes.json')).split('\n')[2]).toBe(
      '  Format: Unknown (the content reads as Plain text)',
    )
    expect(formatContextHint(analyzeContext(csv, 'data.txt'), { style: 'inline' })).toContain(
      'detected: Plain text (content: CSV)',
    )
  })
})

const record = fc.dictionary(
  fc.string({ unit: fc.constantFrom('a', 'b', 'k', '_'), minLength: 1, maxLength: 4 }),
  fc.oneof(fc.integer(), fc.string({ maxLength: 6 })),
  { minKeys: 1, maxKeys: 4 },
)
const contents = fc.oneof(
  fc
    .array(record, { minLength: 2, maxLength: 6 })
    .map((rs) => rs.map((r) => JSON.stringify(r)).join('\n')),
  fc.array(record, { maxLength: 4 }).map((rs) => JSON.stringify(rs)),
  record.map((r) => JSON.stringify(r, null, 2)),
  fc
    .array(fc.array(fc.integer({ min: 0, max: 99 }), { minLength: 3, maxLength: 3 }), {
      minLength: 2,
      maxLength: 6,
    })
    .map((rows) => `x,y,z\n${rows.map((r) => r.join(',')).join('\n')}\n`),
  fc.constantFrom(
    prose,
    '# Title\n\n- one\n- two\n\n## More\n',
    '<root><item/></root>',
    'a: 1\nb: 2\n',
  ),
  fc.string({ maxLength: 80 }),
)
const knownExtensions = [
  'ndjson',
  'jsonl',
  'json',
  'csv',
  'tsv',
  'txt',
  'log',
  'md',
  'yaml',
  'xml',
  'html',
]

describe('properties of the extension rule', () => {
  test('property: a known extension is the format, unless nothing can be read as it', () => {
    fc.assert(
      fc.property(contents, fc.constantFrom(...knownExtensions), (text, ext) => {
        const name = `file.${ext}`
        const named = formatFromExtension(name)!
        const meta = analyzeContext(text, name)
        const allowed = new Set([named, 'unknown', ...(named === 'json' ? ['json-array'] : [])])
        expect(allowed).toContain(meta.format)
        // unknown only for JSON names or content nothing can read (empty, misdecoded)
        if (meta.format === 'unknown' && named !== 'json' && named !== 'ndjson') {
          expect(analyzeContext(text).format).toBe('unknown')
        }
        // a contradiction is never silent: a differing content format outside a text file
        // carries a warning
        if (meta.contentFormat && meta.format !== 'plain-text' && meta.format !== 'markdown') {
          const silent = meta.format === 'yaml'
          if (!silent) expect(meta.warnings?.length ?? 0).toBeGreaterThan(0)
        }
        // the text kind is there exactly for text formats
        expect(meta.textKind !== undefined).toBe(
          meta.format === 'plain-text' || meta.format === 'markdown',
        )
      }),
      { numRuns: 400 },
    )
  })

  test('property: a .txt name changes the reported format, never what the content reads as nor its counts', () => {
    fc.assert(
      fc.property(contents, (text) => {
        const bare = analyzeContext(text)
        const txt = analyzeContext(text, 'file.txt')
        expect(txt.contentFormat ?? txt.format).toBe(bare.format)
        expect(details(txt)).toEqual(details(bare))
        if (bare.format !== 'unknown') expect(txt.format).toBe('plain-text')
      }),
      { numRuns: 400 },
    )
  })
})
