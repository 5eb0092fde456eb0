import { execFileSync } from 'node:child_process'
import { mkdir, mkdtemp, open, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { readTextFile } from './read-text-file.js'

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ck-read-text-'))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe('readTextFile', () => {
  test('reads UTF-8 text; one leading BOM is removed and reported', async () => {
    const path = join(dir, 'bom.md')
    await writeFile(path, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('héllo\n')]))
    const read = await readTextFile(path, { maxBytes: 100 })
    expect(read).toMatchObject({ ok: true, text: 'héllo\n', bom: true })
    expect(read.ok && read.bytes.length).toBe(10)
    expect(read.ok && read.stats.isFile()).toBe(true)
    // a second BOM is content
    await writeFile(path, '\uFEFF\uFEFFx')
    expect(await readTextFile(path, { maxBytes: 100 })).toMatchObject({
      text: '\uFEFFx',
      bom: true,
    })
  })

  test('missing, not a file, too large, binary, not UTF-8: results, never throws', async () => {
    expect(await readTextFile(join(dir, 'nope.md'), { maxBytes: 10 })).toMatchObject({
      ok: false,
      problem: 'missing',
      errno: 'ENOENT',
    })
    expect(await readTextFile(join(dir, 'nope', 'x.md'), { maxBytes: 10 })).toMatchObject({
      problem: 'missing',
    })
    await mkdir(join(dir, 'sub'))
    const directory = await readTextFile(join(dir, 'sub'), { maxBytes: 10 })
    expect(directory).toMatchObject({ ok: false, problem: 'not-a-file' })
    expect(!directory.ok && directory.stats?.isDirectory()).toBe(true)
    await writeFile(join(dir, 'big.md'), 'x'.repeat(11))
    expect(await readTextFile(join(dir, 'big.md'), { maxBytes: 10 })).toMatchObject({
      problem: 'too-large',
      size: 11,
    })
    expect(await readTextFile(join(dir, 'big.md'), { maxBytes: 11 })).toMatchObject({ ok: true })
    await writeFile(join(dir, 'bin.dat'), Buffer.from([0x41, 0x00, 0xff]))
    expect(
      await readTextFile(join(dir, 'bin.dat'), { maxBytes: 10, binarySniffBytes: 8 }),
    ).toMatchObject({ problem: 'binary' })
    // without the sniff, the same bytes are refused as bad UTF-8 (0xff)
    expect(await readTextFile(join(dir, 'bin.dat'), { maxBytes: 10 })).toMatchObject({
      problem: 'not-utf8',
    })
  })

  test('a FIFO neither blocks nor is read', async () => {
    const fifo = join(dir, 'pipe')
    execFileSync('mkfifo', [fifo])
    expect(await readTextFile(fifo, { maxBytes: 10 })).toMatchObject({ problem: 'not-a-file' })
  })

  test('a handle given by the caller is read from the start and left open', async () => {
    const path = join(dir, 'handle.md')
    await writeFile(path, 'abc')
    const handle = await open(path, 'r')
    try {
      expect(await readTextFile(handle, { maxBytes: 3 })).toMatchObject({ ok: true, text: 'abc' })
      expect((await handle.stat()).size).toBe(3) // still open
    } finally {
      await handle.close()
    }
  })

  test('property: text exactly when the bytes are valid UTF-8 within the cap', async () => {
    const path = join(dir, 'prop.bin')
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 40 }), fc.nat(40), async (bytes, maxBytes) => {
        await writeFile(path, bytes)
        const read = await readTextFile(path, { maxBytes })
        if (bytes.length > maxBytes) {
          expect(read).toMatchObject({ ok: false, problem: 'too-large', size: bytes.length })
          return
        }
        let expected: string | undefined
        try {
          expected = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes)
        } catch {
          expected = undefined
        }
        if (expected === undefined) {
          expect(read).toMatchObject({ ok: false, problem: 'not-utf8' })
        } else {
          expect(read.ok).toBe(true)
          if (read.ok) {
            expect(read.bom ? `\uFEFF${read.text}` : read.text).toBe(expected)
            expect(Buffer.compare(read.bytes, Buffer.from(bytes))).toBe(0)
          }
        }
      }),
      { numRuns: 200 },
    )
  })
})
