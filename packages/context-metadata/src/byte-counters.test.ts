import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { LineCounter } from '@contextkit/core'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { anyCodePoints } from '../../../test-utils/arbitraries.js'
import { countBytes } from './analyze-file.js'
import {
  ByteCounts,
  ByteTally,
  byteCountBuffer,
  completeEnd,
  utf16LengthOfValid,
} from './byte-counters.js'
import { NdjsonRecordCounter } from './record-counters.js'
import { memoryReader } from './test-support.js'

/** Bytes: valid UTF-8, invalid sequences, cut sequences, BOMs, brackets and line breaks. */
const pieces = fc.constantFrom(
  ...['{"a":1}', '[]', '}', ']', '\n', '\r', '\r\n', ' ', 'x', 'é', '€', '😀', '\uFEFF'].map((s) =>
    Buffer.from(s),
  ),
  ...[
    [0xff],
    [0xc0, 0x80],
    [0xe2, 0x82],
    [0xf0, 0x9f, 0x98],
    [0xed, 0xa0, 0x80],
    [0x80],
    [0xef],
    [0xef, 0xbb],
  ].map((b) => Buffer.from(b)),
)
const anyBytes = fc.oneof(
  fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b)),
  fc.array(pieces, { maxLength: 80 }).map((parts) => Buffer.concat(parts)),
  // long enough for the native counters' 32-byte steps, a break anywhere in a step
  fc.array(pieces, { minLength: 100, maxLength: 800 }).map((parts) => Buffer.concat(parts)),
)

/** The counts the text counters give on the decoded text. */
function textCounts(bytes: Buffer) {
  const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes)
  const lines = new LineCounter()
  lines.push(text)
  const ndjson = new NdjsonRecordCounter()
  ndjson.push(text)
  return {
    chars: text.length,
    lines: lines.result(),
    records: ndjson.result(),
    malformed: ndjson.malformed(),
  }
}

/** Run `countBytes` over `bytes`, read `chunk` bytes at a time after a `sniff`-byte window. */
async function byteCounts(bytes: Buffer, sniff: number, chunk: number, wasm: boolean) {
  const { buffer, counts, read, atEnd } = memoryReader(bytes, sniff, chunk, wasm)
  let filled = 0
  while (filled < sniff) {
    const n = await read(sniff - filled, filled)
    if (n === 0) break
    filled += n
  }
  const tally = new ByteTally(true)
  const eof = atEnd() && filled < sniff
  const size = await countBytes(tally, { buffer, counts, filled, eof, chunkBytes: chunk, read })
  return {
    size,
    chars: tally.chars,
    lines: tally.lines.result(),
    records: tally.ndjson?.result(),
    malformed: tally.ndjson?.malformed(),
  }
}

describe('byte counters', () => {
  test('property: chars, lines and NDJSON records on bytes equal the decoded text’s, any split', async () => {
    await fc.assert(
      fc.asyncProperty(
        anyBytes,
        fc.integer({ min: 1, max: 300 }),
        fc.integer({ min: 1, max: 300 }),
        fc.boolean(),
        async (bytes, sniff, chunk, wasm) => {
          const got = await byteCounts(bytes, sniff, chunk, wasm)
          const { size, ...counts } = got
          expect(size).toBe(bytes.length)
          expect(counts).toEqual(textCounts(bytes))
        },
      ),
      { numRuns: 400 },
    )
  })

  test('property: decoding up to completeEnd and from it gives the whole text', () => {
    fc.assert(
      fc.property(anyBytes, fc.nat(), (bytes, cut) => {
        const at = bytes.length === 0 ? 0 : cut % (bytes.length + 1)
        const end = completeEnd(bytes, at)
        expect(end).toBeLessThanOrEqual(at)
        expect(at - end).toBeLessThanOrEqual(3)
        const d = new TextDecoder('utf-8', { ignoreBOM: true })
        const whole = d.decode(bytes)
        expect(d.decode(bytes.subarray(0, end)) + d.decode(bytes.subarray(end))).toBe(whole)
      }),
      { numRuns: 500 },
    )
  })

  test('property: the WebAssembly and JavaScript UTF-16 counts agree with TextDecoder', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          anyCodePoints({ maxLength: 200 }),
          fc.string({ unit: fc.constantFrom('\n', '\r', 'a', 'é', '😀'), maxLength: 200 }),
        ),
        fc.nat(40),
        (text, offset) => {
          const encoded = Buffer.from(text)
          const { buffer, counts } = byteCountBuffer(encoded.length + offset)
          encoded.copy(buffer, offset)
          const expected = new TextDecoder('utf-8', { ignoreBOM: true }).decode(encoded).length
          const to = offset + encoded.length
          expect(counts.utf16(offset, to)).toBe(expected)
          expect(
            new ByteCounts(buffer, undefined, new Int32Array(buffer.length), 0).utf16(offset, to),
          ).toBe(expected)
          expect(utf16LengthOfValid(buffer, offset, to)).toBe(expected)
          const expectedBreaks: number[] = []
          encoded.forEach((b, i) => {
            if (b === 10 || b === 13) expectedBreaks.push(offset + i)
          })
          const js = new ByteCounts(buffer, undefined, new Int32Array(buffer.length), 0)
          for (const c of [counts, js]) {
            const k = c.breaks(offset, to)
            expect([...c.breakList.subarray(0, k)]).toEqual(expectedBreaks)
          }
        },
      ),
      { numRuns: 300 },
    )
  })

  test('a BOM alone is no line; a BOM inside a line is blank to the NDJSON counter', async () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf])
    expect((await byteCounts(bom, 16, 16, true)).lines.lines).toBe(0)
    const line = Buffer.from('\uFEFF {"a":1} \uFEFF\n\uFEFF\n')
    const got = await byteCounts(line, 4, 5, true)
    expect(got).toMatchObject({ records: 1, malformed: 0, lines: { lines: 2, lf: 2 } })
  })
})

test('the committed WebAssembly bytes are the compilation of wasm/byte-count.wat', () => {
  const script = fileURLToPath(new URL('../scripts/build-wasm.mjs', import.meta.url))
  // exits 1 (and execFileSync throws) when src/byte-count-wasm.ts is stale
  expect(() => execFileSync(process.execPath, [script, '--check'], { stdio: 'pipe' })).not.toThrow()
})
