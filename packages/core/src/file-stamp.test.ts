import { mkdir, mkdtemp, rename, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { ValidationError } from './errors.js'
import {
  FILE_STAMP_RACY_MS,
  fileStamp,
  sameFileStamp,
  stampIsRacy,
  statStamp,
} from './file-stamp.js'
import { readTextFile } from './read-text-file.js'

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ck-file-stamp-'))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

/** The stamp of `path`, which must exist. */
function stampOf(path: string, follow = true) {
  const stamp = statStamp(path, follow)
  if (!stamp) throw new Error(`no stamp for ${path}`)
  return stamp
}

describe('file stamps', () => {
  test('an unchanged file keeps its stamp; readTextFile gives the same stamp as statStamp', async () => {
    const path = join(dir, 'same.md')
    await writeFile(path, 'hello')
    const before = stampOf(path)
    expect(before.kind).toBe('file')
    expect(before.size).toBe(5n)
    expect(sameFileStamp(before, stampOf(path))).toBe(true)
    const read = await readTextFile(path, { maxBytes: 100 })
    expect(read.ok && sameFileStamp(read.stamp, before)).toBe(true)
  })

  test('a write of the same size, and a same-size replacement with its times set back, change it', async () => {
    const path = join(dir, 'swap.md')
    await writeFile(path, 'aaaa')
    const before = stampOf(path)
    const { atime, mtime } = await stat(path)
    // rewritten in place, same size, modification time set back: the change time still moves
    await new Promise((r) => setTimeout(r, 15))
    await writeFile(path, 'bbbb')
    await utimes(path, atime, mtime)
    expect(stampOf(path).size).toBe(before.size)
    // utimes from the stat's Date: back to the same millisecond (±1 for its rounding)
    const drift = stampOf(path).mtimeNs / 1_000_000n - before.mtimeNs / 1_000_000n
    expect(drift >= -1n && drift <= 1n).toBe(true)
    expect(sameFileStamp(before, stampOf(path))).toBe(false)
    // replaced by rename (as `cp -p` to a temp name, then `mv`): a new inode
    const middle = stampOf(path)
    const other = join(dir, 'swap.tmp')
    await writeFile(other, 'cccc')
    await utimes(other, atime, mtime)
    await rename(other, path)
    expect(sameFileStamp(middle, stampOf(path))).toBe(false)
  })

  test('kinds: a directory, a symbolic link with follow false, and what cannot be stat-ed', async () => {
    await mkdir(join(dir, 'sub'), { recursive: true })
    expect(stampOf(join(dir, 'sub')).kind).toBe('directory')
    await writeFile(join(dir, 'target.md'), 'x')
    await symlink(join(dir, 'target.md'), join(dir, 'link.md'))
    expect(stampOf(join(dir, 'link.md')).kind).toBe('file')
    expect(stampOf(join(dir, 'link.md'), false).kind).toBe('other')
    expect(statStamp(join(dir, 'missing.md'))).toBeUndefined()
    expect(statStamp(join(dir, 'target.md', 'below'))).toBeUndefined()
    expect(statStamp('\u0000')).toBeUndefined()
  })

  test('a stamp is racy within FILE_STAMP_RACY_MS of its last change, trusted after', async () => {
    const path = join(dir, 'racy.md')
    await writeFile(path, 'x')
    const stamp = stampOf(path)
    expect(stampIsRacy(stamp, Date.now())).toBe(true)
    expect(stampIsRacy(stamp, Date.now() + FILE_STAMP_RACY_MS + 50)).toBe(false)
    expect(stampIsRacy(stamp, Date.now(), 0)).toBe(false)
  })

  test('bad arguments are ValidationErrors that name the function', () => {
    const bad: Array<() => unknown> = [
      () => fileStamp({} as never),
      () => fileStamp(null as never),
      () => statStamp(42 as never),
      () => sameFileStamp({} as never, {} as never),
      () => stampIsRacy({ mtimeNs: 1 } as never, 0),
      () => stampIsRacy(stampOf(dir), Number.NaN),
    ]
    for (const call of bad) {
      let caught: unknown
      try {
        call()
      } catch (error) {
        caught = error
      }
      expect(ValidationError.isInstance(caught)).toBe(true)
    }
  })
})
