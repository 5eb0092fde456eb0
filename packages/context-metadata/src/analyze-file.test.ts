import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ValidationError } from '@contextkit/core'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { anyCodePoints } from '../../../test-utils/arbitraries.js'
import { analyzeContext } from './analyze-context.js'
import { analyzeFile } from './analyze-file.js'
import { AnalysisAbortedError, ContextFileReadError, ContextFileTypeError } from './errors.js'

let dir: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ctxmeta-file-'))
})
afterAll(() => {
  rmSync(dir, { recursive: true, force: true })
})

/** What analyzeContext says about the file's text read the ordinary way, plus its size. */
function expectedFor(path: string, name: string) {
  const bytes = readFileSync(path)
  return { ...analyzeContext(bytes.toString('utf8'), name), bytes: bytes.length }
}

describe('analyzeFile', () => {
  test('property: same metadata as analyzeContext on the decoded text, for any chunk size', async () => {
    let i = 0
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          anyCodePoints({ maxLength: 200 }),
          fc.string({
            unit: fc.constantFrom('{"a":1}', '\n', '\r\n', ',', '"', 'é', '😀', 'x', '[', ']'),
            maxLength: 80,
          }),
          fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b)),
        ),
        fc.constantFrom('x.ndjson', 'x.csv', 'x.json', 'x.txt', 'noext'),
        fc.integer({ min: 16, max: 64 }),
        async (content, name, chunkBytes) => {
          const path = join(dir, `p${i++}`)
          writeFileSync(path, content)
          const meta = await analyzeFile(path, { fileName: name, chunkBytes, sniffBytes: 16 })
          // a 16-byte sniff window differs from analyzeContext's 65536 chars only in detection;
          // the default window must agree exactly:
          const full = await analyzeFile(path, { fileName: name, chunkBytes })
          expect(full).toEqual(expectedFor(path, name))
          expect(meta.chars).toBe(full.chars)
          expect(meta.lines).toBe(full.lines)
          expect(meta.bytes).toBe(full.bytes)
        },
      ),
      { numRuns: 150 },
    )
  })

  test.each([
    [
      'feed.ndjson',
      () => Array.from({ length: 3000 }, (_, i) => JSON.stringify({ i, t: `é😀 ${i}` })).join('\n'),
    ],
    [
      'data.csv',
      () =>
        'id,note\n' + Array.from({ length: 3000 }, (_, i) => `${i},"a, é\n😀 ""${i}"""`).join('\n'),
    ],
    [
      'arr.json',
      () =>
        JSON.stringify(
          Array.from({ length: 3000 }, (_, i) => ({ i, s: 'é"😀' })),
          null,
          2,
        ),
    ],
  ])(
    '%s larger than the sniff window is counted in full across chunk boundaries',
    async (name, make) => {
      const path = join(dir, name)
      writeFileSync(path, make())
      const meta = await analyzeFile(path, { chunkBytes: 4093 })
      expect(meta).toEqual(expectedFor(path, name))
      expect(meta.recordCount).toBe(3000)
      expect(meta.bytes).toBeGreaterThan(65536)
    },
  )

  test('fileName defaults to the base name; bytes are reported', async () => {
    const path = join(dir, 'people.tsv')
    writeFileSync(path, 'name\tage\nbö\t3\n')
    const meta = await analyzeFile(path)
    expect(meta).toMatchObject({ fileName: 'people.tsv', format: 'tsv', bytes: 15, chars: 14 })
  })

  test('a missing file is a recoverable ContextFileReadError with the errno', async () => {
    const err = await analyzeFile(join(dir, 'nope.txt')).catch((e: unknown) => e)
    expect(ContextFileReadError.isInstance(err)).toBe(true)
    expect((err as ContextFileReadError).recoverable).toBe(true)
    expect((err as ContextFileReadError).details.errno).toBe('ENOENT')
  })

  test('a directory, a FIFO and a symlink to /dev/zero are refused without hanging', async () => {
    const fifo = join(dir, 'pipe')
    execFileSync('mkfifo', [fifo])
    const zero = join(dir, 'zero.txt')
    symlinkSync('/dev/zero', zero)
    for (const path of [dir, fifo, zero]) {
      const err = await analyzeFile(path).catch((e: unknown) => e)
      expect(ContextFileTypeError.isInstance(err)).toBe(true)
      expect((err as ContextFileTypeError).code).toBe('context_metadata_file_not_regular')
    }
  })

  test('an aborted signal stops the read with AnalysisAbortedError', async () => {
    const path = join(dir, 'big.txt')
    writeFileSync(path, 'line\n'.repeat(100_000))
    const controller = new AbortController()
    controller.abort(new Error('stop'))
    const err = await analyzeFile(path, { signal: controller.signal }).catch((e: unknown) => e)
    expect(AnalysisAbortedError.isInstance(err)).toBe(true)
  })

  test('bad options are a ValidationError', async () => {
    const path = join(dir, 'ok.txt')
    writeFileSync(path, 'x')
    await expect(analyzeFile(path, { chunkBytes: 1 })).rejects.toBeInstanceOf(ValidationError)
    await expect(analyzeFile(path, { maxFields: -1 })).rejects.toBeInstanceOf(ValidationError)
    const notASignal = { signal: 'stop' } as unknown as { signal: AbortSignal }
    await expect(analyzeFile(path, notASignal)).rejects.toBeInstanceOf(ValidationError)
  })

  test('a path that is not a non-empty string is a ValidationError, not a TypeError', async () => {
    for (const bad of [undefined, null, 42, {}, ['a'], '']) {
      const err = await analyzeFile(bad as unknown as string).catch((e: unknown) => e)
      expect(ValidationError.isInstance(err)).toBe(true)
    }
  })

  test('null options mean the defaults', async () => {
    const path = join(dir, 'null-opts.ndjson')
    writeFileSync(path, '{"a":1}\n{"a":2}\n')
    const meta = await analyzeFile(path, null as unknown as undefined)
    expect(meta).toEqual(expectedFor(path, 'null-opts.ndjson'))
  })
})
