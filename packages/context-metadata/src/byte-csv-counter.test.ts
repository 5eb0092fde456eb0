import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { analyzeContext } from './analyze-context.js'
import { analyzeFile, countBytes } from './analyze-file.js'
import { ByteTally } from './byte-counters.js'
import { type CsvCountSpec, countsOnBytes, hasContentBytes } from './byte-csv-counter.js'
import { referenceCsvCount } from './csv-reference.js'
import { CsvRecordCounter } from './record-counters.js'
import { memoryReader } from './test-support.js'

/** CSV pieces as bytes: quotes, `""`, delimiters, CR/LF, multi-byte UTF-8, BOMs, bad bytes. */
const piece = fc.constantFrom(
  ...['a', ' ', ',', ';', '\t', '|', '"', '""', '\n', '\r', '\r\n', 'é', '€', '😀', '\uFEFF'].map(
    (s) => Buffer.from(s),
  ),
  ...[[0xff], [0xe2, 0x82], [0xf0, 0x9f, 0x98], [0xef, 0xbb], [0x80]].map((b) => Buffer.from(b)),
)

/** Rows of cells, some quoted (holding delimiters, quotes and line breaks), as bytes. */
function csvBytes(delimiter: string) {
  const plain = fc.string({ unit: fc.constantFrom('a', 'é', '😀', ' ', '\uFEFF'), maxLength: 4 })
  const quoted = fc
    .string({ unit: fc.constantFrom('a', delimiter, '"', '\n', '\r\n', '😀'), maxLength: 5 })
    .map((v) => `"${v.replaceAll('"', '""')}"`)
  const row = fc.array(fc.oneof(plain, quoted), { minLength: 1, maxLength: 4 })
  return fc
    .tuple(fc.array(row, { maxLength: 30 }), fc.constantFrom('\n', '\r\n', '\r'), fc.boolean())
    .map(([rows, nl, bom]) =>
      Buffer.from((bom ? '\uFEFF' : '') + rows.map((r) => r.join(delimiter)).join(nl)),
    )
}

/** What the text counter finds in the decoded bytes. */
function textCount(bytes: Buffer, spec: CsvCountSpec) {
  const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes)
  const counter = new CsvRecordCounter(spec.delimiter, spec)
  counter.push(text)
  const want = { records: counter.result(), ragged: counter.raggedRows() }
  expect(want).toEqual(
    referenceCsvCount(text, spec.delimiter, spec.expectedFields, spec.skipRecords),
  )
  return want
}

/** `countBytes` with a CSV tally over `bytes`: `sniff` bytes first, then `chunk` at a time. */
async function byteCount(
  bytes: Buffer,
  spec: CsvCountSpec,
  sniff: number,
  chunk: number,
  wasm: boolean,
) {
  const { buffer, counts, read } = memoryReader(bytes, sniff, chunk, wasm)
  const filled = await read(sniff, 0)
  const tally = new ByteTally(false, spec)
  const eof = filled < sniff
  await countBytes(tally, { buffer, counts, filled, eof, chunkBytes: chunk, read })
  return { records: tally.csv?.result(), ragged: tally.csv?.raggedRows() }
}

describe('ByteCsvCounter', () => {
  test('property: same records and ragged rows as the text counter, any read split', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(',', ';', '\t', '|').chain((d) =>
          fc.tuple(
            fc.constant(d),
            fc.oneof(
              csvBytes(d),
              fc.array(piece, { maxLength: 120 }).map((p) => Buffer.concat(p)),
            ),
          ),
        ),
        fc.integer({ min: 0, max: 4 }),
        fc.integer({ min: 0, max: 2 }),
        fc.integer({ min: 1, max: 96 }),
        fc.integer({ min: 1, max: 96 }),
        fc.boolean(),
        async ([delimiter, bytes], expectedFields, skipRecords, sniff, chunk, wasm) => {
          const spec = { delimiter, expectedFields, skipRecords }
          expect(await byteCount(bytes, spec, sniff, chunk, wasm)).toEqual(textCount(bytes, spec))
        },
      ),
      { numRuns: 600 },
    )
  })

  test('a read that ends on a quote inside a quoted field: `""` or the closing quote', async () => {
    const spec = { delimiter: ',', expectedFields: 2, skipRecords: 0 }
    for (const text of ['a,"x""\ny"\nb,c\n', 'a,"x"\nb,c\n', 'a,"x"""\nb,c']) {
      const bytes = Buffer.from(text)
      for (let chunk = 1; chunk <= bytes.length; chunk++) {
        expect(await byteCount(bytes, spec, 1, chunk, true)).toEqual(textCount(bytes, spec))
      }
    }
  })

  test('only a one-byte ASCII delimiter that is not a quote nor a line break counts on bytes', () => {
    expect([',', ';', '\t', '|', ' '].every(countsOnBytes)).toBe(true)
    expect(['"', '\n', '\r', 'é', '', ',,'].some(countsOnBytes)).toBe(false)
  })

  test('a BOM is blank; a cut BOM or another byte above 0x20 is content', () => {
    expect(hasContentBytes(Buffer.from(' \uFEFF\t\uFEFF'), 0, 8)).toBe(false)
    expect(hasContentBytes(Buffer.from([0xef, 0xbb]), 0, 2)).toBe(true)
    expect(hasContentBytes(Buffer.from('\uFEFF'), 0, 2)).toBe(true)
    expect(hasContentBytes(Buffer.from(' é'), 0, 3)).toBe(true)
  })
})

describe('analyzeFile on CSV bytes', () => {
  let dir: string
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'ctxmeta-csv-'))
  })
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true })
  })

  test('property: same metadata as analyzeContext on the decoded text, any chunk size', async () => {
    let i = 0
    let csv = 0
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(',', ';', '\t').chain((d) => csvBytes(d)),
        fc.boolean(),
        fc.constantFrom('x.csv', 'x.tsv', 'noext'),
        fc.integer({ min: 16, max: 64 }),
        async (body, sepLine, name, chunkBytes) => {
          const path = join(dir, `c${i++}`)
          const header = Buffer.from('id,name,note\n')
          writeFileSync(path, Buffer.concat([sepLine ? Buffer.from('sep=,\n') : header, body]))
          const meta = await analyzeFile(path, { fileName: name, chunkBytes })
          const bytes = readFileSync(path)
          expect(meta).toEqual({
            ...analyzeContext(bytes.toString('utf8'), name),
            bytes: bytes.length,
          })
          if (meta.format === 'csv' || meta.format === 'tsv') csv++
        },
      ),
      { numRuns: 200 },
    )
    expect(csv).toBeGreaterThan(20)
  })

  test('a CSV larger than the sniff window with quoted line breaks across reads', async () => {
    const rows = Array.from({ length: 5000 }, (_, i) => `${i}|"é ""q""|\r\n😀 ${i}"|x\r\n`)
    const path = join(dir, 'big.csv')
    writeFileSync(path, `id|note|flag\r\n${rows.join('')}`)
    const meta = await analyzeFile(path, { chunkBytes: 997 })
    expect(meta).toEqual({
      ...analyzeContext(readFileSync(path, 'utf8'), 'big.csv'),
      bytes: meta.bytes,
    })
    expect(meta).toMatchObject({
      format: 'csv',
      delimiter: '|',
      recordCount: 5000,
      lineEnding: 'crlf',
    })
    expect(meta.raggedRows).toBeUndefined()
  })
})
