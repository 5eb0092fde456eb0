import {
  mkdir,
  mkdtemp,
  readdir,
  rename,
  rm,
  stat,
  symlink,
  unlink,
  utimes,
  writeFile,
} from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { ReadCache } from './read-cache.js'
import { type ReadResult, readResolved, resolveLimits, resolveRoot } from './read-within-root.js'

let base: string
let root: string
const limits = resolveLimits({}, 'test limits')
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

beforeEach(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'preload-cache-'))
  root = path.join(base, 'root')
  await mkdir(path.join(root, 'src'), { recursive: true })
  await writeFile(path.join(base, 'secret.txt'), 'TOP SECRET\n')
})
afterEach(async () => {
  await rm(base, { recursive: true, force: true })
})

async function read(rel: string, cache: ReadCache): Promise<ReadResult> {
  const realRoot = await resolveRoot(root)
  return readResolved(realRoot, rel, limits, cache)
}

function textOf(result: ReadResult): string {
  if (!result.ok) throw result.error
  return result.file.text
}

describe('ReadCache (preload reads of unchanged files)', () => {
  test('an unchanged file is the same read on the next run; a same-size rewrite is seen', async () => {
    const cache = new ReadCache({ racyMs: 0 })
    const file = path.join(root, 'src', 'a.ts')
    await writeFile(file, 'const a = 1\n')
    const first = await read('src/a.ts', cache)
    const second = await read('src/a.ts', cache)
    expect(first.ok && second.ok).toBe(true)
    // the very object: nothing was read, decoded or counted again
    expect(second.ok && first.ok && second.file).toBe(first.ok ? first.file : undefined)

    // same size, and the modification time put back: the change time still differs
    const before = await stat(file)
    await sleep(30) // past the file system's clock tick
    await writeFile(file, 'const b = 2\n')
    await utimes(file, before.atime, before.mtime)
    const third = await read('src/a.ts', cache)
    expect(textOf(third)).toBe('const b = 2\n')
    expect(third.ok && first.ok && third.file).not.toBe(first.ok ? first.file : undefined)
  })

  test('a file changed moments before its read is read again every time (racy timestamps)', async () => {
    const cache = new ReadCache()
    await writeFile(path.join(root, 'fresh.md'), 'one\n')
    const first = await read('fresh.md', cache)
    // a rewrite in the same clock tick keeps size and times: only not caching it is safe
    await writeFile(path.join(root, 'fresh.md'), 'two\n')
    expect(textOf(first)).toBe('one\n')
    expect(textOf(await read('fresh.md', cache))).toBe('two\n')
  })

  test('a cached file swapped for a symlink out of the root is refused, not served', async () => {
    const cache = new ReadCache({ racyMs: 0 })
    const file = path.join(root, 'notes.md')
    await writeFile(file, 'safe\n')
    expect(textOf(await read('notes.md', cache))).toBe('safe\n')
    await unlink(file)
    await symlink(path.join(base, 'secret.txt'), file)
    const after = await read('notes.md', cache)
    expect(after.ok).toBe(false)
    if (!after.ok) expect(after.error.code).toBe('preload_path_outside_root')
  })

  test('a deleted file is reported missing, not served from the cache', async () => {
    const cache = new ReadCache({ racyMs: 0 })
    await writeFile(path.join(root, 'gone.md'), 'here\n')
    expect(textOf(await read('gone.md', cache))).toBe('here\n')
    await unlink(path.join(root, 'gone.md'))
    const after = await read('gone.md', cache)
    expect(after.ok).toBe(false)
    if (!after.ok) expect(after.error.code).toBe('preload_file_not_found')
  })

  test('the cache is bounded: the least recently used file goes first', async () => {
    const cache = new ReadCache({ racyMs: 0, maxEntries: 2 })
    for (const name of ['a', 'b', 'c']) await writeFile(path.join(root, `${name}.md`), `${name}\n`)
    const a = await read('a.md', cache)
    await read('b.md', cache)
    await read('a.md', cache) // a is now the most recent
    await read('c.md', cache) // b goes
    const a2 = await read('a.md', cache)
    expect(a2.ok && a.ok && a2.file).toBe(a.ok ? a.file : undefined)
    const b1 = await read('b.md', cache)
    const b2 = await read('b.md', cache)
    expect(b2.ok && b1.ok && b2.file).toBe(b1.ok ? b1.file : undefined)
  })

  test('derive computes once per unchanged read and again after a change', async () => {
    const cache = new ReadCache({ racyMs: 0 })
    const file = path.join(root, 'd.md')
    await writeFile(file, 'x\n')
    let made = 0
    const make = () => ++made
    const r1 = await read('d.md', cache)
    if (!r1.ok) throw r1.error
    expect(cache.derive(r1.file, 'k', make)).toBe(1)
    const r2 = await read('d.md', cache)
    if (!r2.ok) throw r2.error
    expect(cache.derive(r2.file, 'k', make)).toBe(1)
    await sleep(30)
    await writeFile(file, 'yy\n')
    const r3 = await read('d.md', cache)
    if (!r3.ok) throw r3.error
    expect(cache.derive(r3.file, 'k', make)).toBe(2)
  })

  test('a directory listing is made once while the directory is unchanged, again after', async () => {
    const cache = new ReadCache({ racyMs: 0 })
    let made = 0
    const list = async () => {
      made++
      return (await readdir(root)).sort()
    }
    expect(await cache.listing(root, list)).toEqual(['src'])
    expect(await cache.listing(root, list)).toEqual(['src'])
    expect(made).toBe(1)
    await sleep(30)
    await writeFile(path.join(root, 'AGENTS.md'), '# a\n')
    expect(await cache.listing(root, list)).toEqual(['AGENTS.md', 'src'])
    await sleep(30)
    // a file renamed in from elsewhere, and one removed
    await writeFile(path.join(base, 'SOUL.md'), '# s\n')
    await rename(path.join(base, 'SOUL.md'), path.join(root, 'SOUL.md'))
    expect(await cache.listing(root, list)).toEqual(['AGENTS.md', 'SOUL.md', 'src'])
    await sleep(30)
    await unlink(path.join(root, 'AGENTS.md'))
    expect(await cache.listing(root, list)).toEqual(['SOUL.md', 'src'])
    expect(made).toBe(4)
  })

  test('a directory listed moments after a change is listed again (racy timestamps)', async () => {
    const cache = new ReadCache()
    let made = 0
    const list = async () => {
      made++
      return readdir(root)
    }
    await writeFile(path.join(root, 'AGENTS.md'), '# a\n')
    await cache.listing(root, list)
    await cache.listing(root, list)
    expect(made).toBe(2)
  })
})
