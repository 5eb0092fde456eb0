import { ValidationError } from '@contextkit/core'
import { describe, expect, test } from 'vitest'
import { analyzeContext } from './analyze-context.js'
import { formatFromExtension } from './detect.js'

const rec = (i: number) => ({ id: i, name: `n${i}`, tags: ['x'], owner: { first: 'a', last: 'b' } })

describe('encoding and line endings', () => {
  test('a UTF-8 BOM is reported, kept in chars, and does not break JSON or CSV headers', () => {
    const json = analyzeContext('\uFEFF[{"a":1},{"a":2}]', 'x.json')
    expect(json).toMatchObject({ format: 'json-array', recordCount: 2, bom: true, chars: 18 })
    const csv = analyzeContext('\uFEFFid,name\n1,a\n2,b\n', 'x.csv')
    expect(csv.fields).toEqual(['id', 'name'])
    expect(csv.recordCount).toBe(2)
  })

  test('CRLF and CR-only line endings count lines and records the same as LF', () => {
    const lf = 'id,name\n1,a\n2,b\n3,c\n'
    for (const [eol, ending] of [
      ['\r\n', 'crlf'],
      ['\r', 'cr'],
      ['\n', 'lf'],
    ] as const) {
      const meta = analyzeContext(lf.replaceAll('\n', eol), 'x.csv')
      expect(meta).toMatchObject({ format: 'csv', lines: 4, recordCount: 3, lineEnding: ending })
      expect(meta.fields).toEqual(['id', 'name'])
    }
    const nd = analyzeContext('{"a":1}\r\n{"a":2}\r\n')
    expect(nd).toMatchObject({ format: 'ndjson', lines: 2, recordCount: 2, lineEnding: 'crlf' })
  })

  test('a blank trailing line counts as a line but not as a record', () => {
    expect(analyzeContext('{"a":1}\n{"a":2}\n\n')).toMatchObject({ lines: 3, recordCount: 2 })
    expect(analyzeContext('a,b\n1,2\n3,4\n\n', 'x.csv')).toMatchObject({ lines: 4, recordCount: 2 })
  })
})

describe('delimited data', () => {
  test('quoted commas and quoted newlines: records differ from lines', () => {
    const csv = 'id,comment\n1,"hello, world"\n2,"line one\nline two"\n3,"say ""hi"""\n'
    const meta = analyzeContext(csv)
    expect(meta).toMatchObject({ format: 'csv', delimiter: ',', lines: 5, recordCount: 3 })
    expect(meta.fields).toEqual(['id', 'comment'])
    expect(meta.sampleRecord).toBe('1,"hello, world"')
  })

  test.each([
    [';', 'csv'],
    ['\t', 'tsv'],
    ['|', 'csv'],
  ])('delimiter %j is detected from content alone', (d, format) => {
    const body = [
      ['city', 'country', 'pop'],
      ['Paris', 'France', '2'],
      ['Rome', 'Italy', '3'],
      ['Oslo', 'Norway', '1'],
    ]
      .map((row) => row.join(d))
      .join('\n')
    const meta = analyzeContext(body)
    expect(meta.format).toBe(format)
    expect(meta.delimiter).toBe(d)
    expect(meta.fields).toEqual(['city', 'country', 'pop'])
    expect(meta.recordCount).toBe(3)
  })

  test('a single-column CSV with a header needs its extension (the tie-breaker)', () => {
    const text = 'email\na@x.org\nb@y.org\nc@z.org\n'
    expect(analyzeContext(text, 'emails.csv')).toMatchObject({
      format: 'csv',
      fields: ['email'],
      recordCount: 3,
      hasHeader: true,
    })
    expect(analyzeContext(text).format).toBe('plain-text')
  })

  test('the sep= hint line sets the delimiter and is neither header nor record', () => {
    const meta = analyzeContext('sep=;\nname;price\napple;1,50\npear;2,00\n')
    expect(meta).toMatchObject({ format: 'csv', delimiter: ';', recordCount: 2 })
    expect(meta.fields).toEqual(['name', 'price'])
  })

  test('TSV by extension and by content', () => {
    const text = 'a\tb\tc\n1\t2\t3\n4\t5\t6\n'
    expect(analyzeContext(text, 'data.tsv')).toMatchObject({ format: 'tsv', recordCount: 2 })
    expect(analyzeContext(text)).toMatchObject({ format: 'tsv', delimiter: '\t' })
  })

  test('a first row with numbers is data, not a header', () => {
    const meta = analyzeContext('1,2,3\n4,5,6\n7,8,9\n')
    expect(meta).toMatchObject({ format: 'csv', hasHeader: false, recordCount: 3 })
    expect(meta.fields).toEqual(['column1', 'column2', 'column3'])
  })
})

describe('plain text is not mistaken for data', () => {
  test('prose with commas is plain text', () => {
    const prose =
      'It was a dark and stormy night, and the rain fell in torrents.\n' +
      'Except at occasional intervals, when it was checked by a violent gust.\n' +
      'The wind swept up the streets, rattling along the housetops, fiercely.\n'
    expect(analyzeContext(prose).format).toBe('plain-text')
    expect(analyzeContext(prose, 'novel.txt').format).toBe('plain-text')
  })

  test('one number per line is not NDJSON (records are objects or arrays)', () => {
    const meta = analyzeContext('1\n2\n3\n4\n')
    expect(meta.format).toBe('plain-text')
    expect(meta.recordCount).toBeUndefined()
    // named NDJSON but without a single JSON record: reported, not guessed
    expect(analyzeContext('1\n2\n3\n', 'nums.ndjson')).toMatchObject({
      format: 'unknown',
      warnings: [{ code: 'malformed', message: 'The content is not valid NDJSON.' }],
    })
  })

  test('a log file is plain text, also with bracketed levels', () => {
    const log =
      '2024-11-02 15:30:00 INFO Server started on port 8080, pid 42\n' +
      '2024-11-02 15:30:01 WARN Slow request: GET /api, 1200 ms\n' +
      '[2024-11-02 15:30:02] ERROR Connection reset by peer\n'
    expect(analyzeContext(log, 'server.log').format).toBe('plain-text')
    expect(analyzeContext('[INFO] starting\n[INFO] done\n').format).toBe('plain-text')
  })
})

describe('NDJSON', () => {
  test('fields are the union over the first records, with one-level dot paths', () => {
    const lines = [
      { author: 'a', text: 't', authorProfile: { displayName: 'A', id: 1 } },
      { author: 'b', createdAt: '2024', embed: { external: { uri: 'u' } } },
      { hashtags: ['x'] },
    ].map((r) => JSON.stringify(r))
    const meta = analyzeContext(lines.join('\n'), 'feed.jsonl')
    expect(meta.fields).toEqual([
      'author',
      'text',
      'authorProfile.displayName',
      'authorProfile.id',
      'createdAt',
      'embed.external',
      'hashtags',
    ])
    expect(meta.recordCount).toBe(3)
  })

  test('the union is bounded to maxSampleRecords records and maxFields fields', () => {
    const lines = Array.from({ length: 50 }, (_, i) => JSON.stringify({ [`k${i}`]: i }))
    const meta = analyzeContext(lines.join('\n'), undefined, { maxSampleRecords: 10 })
    expect(meta.fields).toHaveLength(10)
    expect(meta.recordCount).toBe(50)
    const capped = analyzeContext(lines.join('\n'), undefined, { maxFields: 5 })
    expect(capped.fields).toEqual(['k0', 'k1', 'k2', 'k3', 'k4'])
    expect(capped.fieldsTruncated).toBe(true)
  })

  test('a literal key "a.b" stays distinct from the path a → b', () => {
    const meta = analyzeContext('{"a.b":1,"a":{"b":2}}\n{"a.b":3}\n')
    expect(meta.fields).toEqual(['["a.b"]', 'a.b'])
  })

  test('arrays as records are NDJSON too', () => {
    expect(analyzeContext('[1,2]\n[3,4]\n')).toMatchObject({ format: 'ndjson', recordCount: 2 })
  })

  test('U+2028 inside a JSON string never splits a record', () => {
    const text = '{"t":"a\u2028b"}\n{"t":"c\u2029d"}\n'
    expect(analyzeContext(text)).toMatchObject({ format: 'ndjson', lines: 2, recordCount: 2 })
  })

  test('a misleading extension names the format; the content is kept as contentFormat', () => {
    expect(analyzeContext('{"a":1}\n{"a":2}\n', 'data.json')).toMatchObject({
      format: 'json',
      contentFormat: 'ndjson',
      recordCount: 2,
    })
    expect(analyzeContext('{"a":1}\n{"a":2}\n', 'data.csv')).toMatchObject({
      format: 'csv',
      contentFormat: 'ndjson',
    })
    expect(analyzeContext('[{"a":1}]', 'data.txt')).toMatchObject({
      format: 'plain-text',
      contentFormat: 'json-array',
      textKind: 'structured',
    })
  })

  test('a malformed first line of a .ndjson file is reported, not guessed', () => {
    const meta = analyzeContext('{"a":1\n{"a":2}\n', 'x.ndjson')
    expect(meta.format).toBe('unknown')
    expect(meta.warnings?.map((w) => w.code)).toEqual(['malformed'])
  })
})

describe('JSON', () => {
  test('arrays of any size, pretty or not, get a record count, fields and a verbatim sample', () => {
    for (const n of [0, 1, 7, 3000]) {
      const records = Array.from({ length: n }, (_, i) => rec(i))
      for (const text of [JSON.stringify(records), JSON.stringify(records, null, 2)]) {
        const meta = analyzeContext(text, 'x.json', { sampleChars: 1000 })
        expect(meta.format).toBe('json-array')
        expect(meta.recordCount).toBe(n)
        if (n > 0) {
          expect(meta.fields).toEqual(['id', 'name', 'tags', 'owner.first', 'owner.last'])
          // the first element exactly as the file has it, indentation included
          const raw = text.includes('\n')
            ? JSON.stringify(rec(0), null, 2).replace(/\n/g, '\n  ')
            : JSON.stringify(rec(0))
          expect(meta.sampleRecord).toBe(raw)
        }
      }
    }
  })

  test('a JSON array larger than the sniff window is still counted in full', () => {
    const text = JSON.stringify(
      Array.from({ length: 500 }, (_, i) => rec(i)),
      null,
      2,
    )
    const meta = analyzeContext(text, undefined, { sniffChars: 1000 })
    expect(meta).toMatchObject({ format: 'json-array', recordCount: 500 })
    expect(meta.fields).toContain('owner.first')
  })

  test('a JSON object with nested record arrays is described as such', () => {
    const doc = {
      meta: { total: 3, page: 1 },
      data: [rec(1), rec(2), rec(3)],
      errors: [],
      'odd.key': [{ x: 1 }],
    }
    const meta = analyzeContext(JSON.stringify(doc, null, 2), 'resp.json')
    expect(meta.format).toBe('json')
    // top-level keys first, then one level of paths
    expect(meta.fields).toEqual([
      'meta',
      'data',
      'errors',
      '["odd.key"]',
      'meta.total',
      'meta.page',
    ])
    expect(meta.recordArrays).toEqual([
      { key: 'data', count: 3, fields: ['id', 'name', 'tags', 'owner.first', 'owner.last'] },
      { key: '["odd.key"]', count: 1, fields: ['x'] },
    ])
    expect(meta.valueArrays).toEqual([{ key: 'errors', count: 0, elements: 'none' }])
  })

  test('strings with escaped quotes, brackets and commas do not disturb counting', () => {
    const items = ['a"],[{', '\\', '\\"', ',,,', '}}]]'].map((s) => ({ s }))
    expect(analyzeContext(JSON.stringify(items)).recordCount).toBe(5)
  })

  test('a single JSON object line is JSON, or NDJSON when the extension says so', () => {
    expect(analyzeContext('{"a":1}').format).toBe('json')
    expect(analyzeContext('{"a":1}', 'one.ndjson')).toMatchObject({
      format: 'ndjson',
      recordCount: 1,
    })
  })

  test('malformed JSON with a .json name is unknown with a warning', () => {
    const meta = analyzeContext('{"a": [1, 2', 'broken.json')
    expect(meta.format).toBe('unknown')
    expect(meta.warnings?.[0]?.code).toBe('malformed')
  })
})

describe('markdown', () => {
  test('markdown without a leading heading: links, lists, fences', () => {
    const md =
      'Some intro text with a [link](https://example.com).\n\n' +
      '- first item\n- second item\n\n```ts\nconst x = 1\n```\n'
    expect(analyzeContext(md).format).toBe('markdown')
  })

  test('markdown tables are markdown, not pipe-delimited CSV', () => {
    const md = '| name | qty |\n|------|-----|\n| apple | 3 |\n| pear | 4 |\n'
    expect(analyzeContext(md).format).toBe('markdown')
    expect(analyzeContext(md, 'table.csv')).toMatchObject({
      format: 'csv',
      contentFormat: 'markdown',
    })
  })

  test('shebang scripts and #hashtag lines are not markdown', () => {
    const script = '#!/bin/bash\n# install deps\nset -e\necho "hi"\n# done\n'
    expect(analyzeContext(script).format).toBe('plain-text')
    expect(analyzeContext(script, 'run.md')).toMatchObject({
      format: 'markdown',
      contentFormat: 'plain-text',
      textKind: 'structured',
    })
    expect(analyzeContext('#arsenal what a win\n#football #afc\nso good\n').format).toBe(
      'plain-text',
    )
  })

  test('headings and setext headings are markdown; one # line alone is not', () => {
    expect(analyzeContext('# Title\n\nBody text.\n\n## Usage\n\nMore.\n').format).toBe('markdown')
    expect(analyzeContext('# Title\n\nBody text.\n').format).toBe('plain-text')
    expect(analyzeContext('# Title\n\nBody text.\n', 'notes.md').format).toBe('markdown')
    expect(analyzeContext('Title\n=====\n\nBody.\n\nMore\n----\n').format).toBe('markdown')
  })
})

describe('markup', () => {
  test('XML with a prolog, a BOM or comments', () => {
    for (const text of [
      '<?xml version="1.0" encoding="UTF-8"?>\n<feed><entry/></feed>',
      '\uFEFF<feed><entry>x</entry></feed>',
      '<!-- generated -->\n<!-- twice -->\n<catalog><book id="1"/></catalog>',
    ]) {
      const meta = analyzeContext(text)
      expect(meta.format).toBe('xml')
      expect(['feed', 'catalog']).toContain(meta.rootElement)
    }
  })

  test('HTML is its own format, from the doctype, the root or a known element', () => {
    expect(analyzeContext('<!DOCTYPE html>\n<html><body>x</body></html>').format).toBe('html')
    expect(analyzeContext('<html lang="en"><head></head></html>').format).toBe('html')
    expect(analyzeContext('<div class="a"><p>x</p></div>').format).toBe('html')
    // an .xml name keeps it XML (one family: no warning)
    expect(analyzeContext('<!doctype html><title>t</title>', 'page.xml').format).toBe('xml')
  })
})

describe('bad or odd input', () => {
  test('UTF-16 read as UTF-8 is unknown with a utf16 warning', () => {
    const utf16 = Buffer.from('\uFEFFname,age\nbob,3\n', 'utf16le').toString('utf8')
    const meta = analyzeContext(utf16, 'people.csv')
    expect(meta.format).toBe('unknown')
    expect(meta.warnings?.map((w) => w.code)).toEqual(['utf16'])
  })

  test('binary read as UTF-8 is unknown with a misdecoded warning', () => {
    const bytes = Buffer.from(Array.from({ length: 2048 }, (_, i) => (i * 131 + 7) % 256))
    const meta = analyzeContext(bytes.toString('utf8'), 'image.png')
    expect(meta.format).toBe('unknown')
    expect(meta.warnings?.map((w) => w.code)).toEqual(['misdecoded'])
  })

  test('Latin-1 text read as UTF-8 is unknown with a misdecoded warning', () => {
    const latin1 = Buffer.from('nom;ville\nRené;Orléans\nAndré;Besançon\nZoé;Nîmes\n', 'latin1')
    const meta = analyzeContext(latin1.toString('utf8'), 'clients.csv')
    expect(meta.format).toBe('unknown')
    expect(meta.warnings?.[0]?.code).toBe('misdecoded')
    // the same text decoded correctly is fine
    expect(analyzeContext(latin1.toString('latin1'), 'clients.csv').format).toBe('csv')
  })

  test('empty and whitespace-only input', () => {
    expect(analyzeContext('')).toMatchObject({ format: 'unknown', chars: 0, lines: 0 })
    const ws = analyzeContext(' \n\t\n', 'x.csv')
    expect(ws).toMatchObject({ format: 'unknown', chars: 4, lines: 2 })
    expect(ws.warnings?.[0]?.code).toBe('empty')
  })

  test('samples never end in a lone surrogate', () => {
    const emoji = '😀'.repeat(300)
    for (let cut = 10; cut < 40; cut++) {
      const meta = analyzeContext(`{"t":"${emoji}"}\n{"t":"x"}\n`, undefined, { sampleChars: cut })
      const last = meta.sampleRecord!.charCodeAt(meta.sampleRecord!.length - 2)
      expect(last >= 0xd800 && last <= 0xdbff).toBe(false)
      expect(meta.sampleRecord!.length).toBeLessThanOrEqual(cut)
    }
  })

  test('bad options and non-string content are a ValidationError', () => {
    expect(() => analyzeContext('x', undefined, { sniffChars: 0 })).toThrow(ValidationError)
    expect(() => analyzeContext('x', undefined, { maxFields: 1.5 })).toThrow(ValidationError)
    expect(() => analyzeContext(42 as unknown as string)).toThrow(ValidationError)
  })
})

describe('content against extension', () => {
  test('the extension decides; unambiguous content is kept as contentFormat', () => {
    expect(analyzeContext('# Notes\n\n- one\n- two\n', 'README.json')).toMatchObject({
      format: 'unknown',
      contentFormat: 'markdown',
      warnings: [{ code: 'malformed' }],
    })
    expect(analyzeContext('id,name\n1,a\n2,b\n', 'data.txt')).toMatchObject({
      format: 'plain-text',
      contentFormat: 'csv',
      recordCount: 2,
    })
    expect(analyzeContext('{"a":1}\n{"b":2}\n', 'log.md')).toMatchObject({
      format: 'markdown',
      contentFormat: 'ndjson',
    })
    expect(analyzeContext('<?xml version="1.0"?><a/>', 'feed.txt')).toMatchObject({
      format: 'plain-text',
      contentFormat: 'xml',
    })
  })

  test('the extension breaks ties when the content has no strong signal', () => {
    expect(analyzeContext('Just a sentence.\n', 'notes.md').format).toBe('markdown')
    expect(analyzeContext('Just a sentence.\n').format).toBe('plain-text')
    expect(analyzeContext('word\n', 'words.csv')).toMatchObject({ format: 'csv', recordCount: 0 })
    expect(analyzeContext('plain words here\n', 'page.xml')).toMatchObject({
      format: 'xml',
      contentFormat: 'plain-text',
      warnings: [{ code: 'mismatch' }],
    })
  })

  test('extensions are read case-insensitively from the last path segment', () => {
    expect(analyzeContext('a\tb\n1\t2\n', 'DIR.csv/DATA.TSV').format).toBe('tsv')
    expect(analyzeContext('{"a":1}', 'C:\\data\\x.NDJSON').format).toBe('ndjson')
  })

  test('formatFromExtension: known extensions, and undefined for anything else', () => {
    expect(formatFromExtension('a/b/feed.JSONL')).toBe('ndjson')
    expect(formatFromExtension('page.htm')).toBe('html')
    expect(formatFromExtension('.csv')).toBeUndefined()
    expect(formatFromExtension('archive.tar.gz')).toBeUndefined()
    for (const bad of [undefined, '', 42, null, {}]) {
      expect(formatFromExtension(bad as unknown as string)).toBeUndefined()
    }
  })
})
