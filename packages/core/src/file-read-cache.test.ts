import {
  mkdtemp,
  readFile,
  rename,
  rm,
  stat,
  symlink,
  unlink,
  utimes,
  writeFile,
} from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { ValidationError } from './errors.js'
import { createFileReadCache, type FileReadCache } from './file-read-cache.js'
import { statStamp } from './file-stamp.js'

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ck-read-cache-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

const tick = () => new Promise((resolve) => setTimeout(resolve, 30))

/** Read `path` through `cache` the way its users do: the stamp first, then the text. */
async function read(cache: FileReadCache<string>, path: string): Promise<string> {
  const kept = cache.lookup(path)
  if (kept !== undefined) return kept
  const startedMs = Date.now()
  const stamp = statStamp(path)
  if (stamp === undefined) throw new Error(`${path} is gone`)
  const text = await readFile(path, 'utf8')
  cache.store(path, stamp, text, startedMs, text.length)
  return text
}

describe('createFileReadCache', () => {
  test('an unchanged file is served; a rewrite, a same-size rewrite with old times, a rename are seen', async () => {
    const cache = createFileReadCache<string>({ racyMs: 0 })
    const file = join(dir, 'a.txt')
    await writeFile(file, 'one')
    expect(await read(cache, file)).toBe('one')
    expect(await read(cache, file)).toBe('one')
    expect({ hits: cache.hits, misses: cache.misses, size: cache.size }).toEqual({
      hits: 1,
      misses: 1,
      size: 1,
    })
    const before = await stat(file)
    await tick()
    await writeFile(file, 'two')
    await utimes(file, before.atime, before.mtime)
    expect(await read(cache, file)).toBe('two')
    await writeFile(join(dir, 'b.txt'), 'three')
    await utimes(join(dir, 'b.txt'), before.atime, before.mtime)
    await rename(join(dir, 'b.txt'), file)
    expect(await read(cache, file)).toBe('three')
    await unlink(file)
    expect(cache.lookup(file)).toBeUndefined()
    expect(cache.size).toBe(0)
  })

  test('a racy read is not kept, and forgets the value kept before', async () => {
    const cache = createFileReadCache<string>()
    const file = join(dir, 'fresh.txt')
    await writeFile(file, 'x')
    const stamp = statStamp(file)!
    expect(cache.store(file, stamp, 'x', Date.now())).toBe(false)
    expect(cache.size).toBe(0)
    const old = createFileReadCache<string>({ racyMs: 0 })
    old.store(file, stamp, 'x', Date.now())
    expect(old.size).toBe(1)
  })

  test('followLinks: false misses once the name is a symbolic link, even to the same file', async () => {
    const file = join(dir, 'f.txt')
    const name = join(dir, 'name.txt')
    await writeFile(file, 'x')
    await writeFile(name, 'x')
    const strict = createFileReadCache<string>({ racyMs: 0, followLinks: false })
    strict.store(name, statStamp(name)!, 'x', Date.now())
    await unlink(name)
    await symlink(file, name)
    expect(strict.lookup(name)).toBeUndefined()
    const loose = createFileReadCache<string>({ racyMs: 0 })
    loose.store(name, statStamp(file)!, 'x', Date.now())
    expect(loose.lookup(name)).toBe('x')
  })
})

describe('createFileReadCache: lookups and limits', () => {
  test('a stamp given by the caller is used; accept refuses without forgetting', async () => {
    const cache = createFileReadCache<string>({ racyMs: 0 })
    const file = join(dir, 'c.txt')
    await writeFile(file, 'abc')
    const stamp = statStamp(file)!
    cache.store(file, stamp, 'abc', Date.now())
    expect(cache.lookup(file, { stamp, accept: (v) => v.length < 2 })).toBeUndefined()
    expect(cache.size).toBe(1)
    expect(cache.lookup(file, { stamp })).toBe('abc')
    expect(cache.lookup(file, { stamp: null })).toBeUndefined()
    expect(cache.size).toBe(0)
  })

  test('bounded by entries and weight, least recently used first', async () => {
    const cache = createFileReadCache<string>({ racyMs: 0, maxEntries: 2, maxWeight: 10 })
    const files = await Promise.all(
      ['a', 'b', 'c'].map(async (n) => {
        const file = join(dir, `${n}.txt`)
        await writeFile(file, n.repeat(4))
        return file
      }),
    )
    const [a, b, c] = files as [string, string, string]
    await read(cache, a)
    await read(cache, b)
    await read(cache, a) // a is now the most recent
    await read(cache, c) // b goes
    expect(cache.size).toBe(2)
    expect(cache.lookup(b)).toBeUndefined()
    expect(cache.lookup(a)).toBe('aaaa')
    // a value heavier than the whole budget is not kept
    expect(cache.store(b, statStamp(b)!, 'x'.repeat(11), Date.now(), 11)).toBe(false)
    // two of weight 4 fit, a third of 4 pushes the oldest out (weight 12 > 10)
    expect(cache.store(b, statStamp(b)!, 'bbbb', Date.now(), 4)).toBe(true)
    expect(cache.size).toBe(2)
    cache.clear()
    expect(cache.size).toBe(0)
  })

  test('invalid options and arguments are ValidationErrors', () => {
    for (const options of [{ maxEntries: 0 }, { racyMs: -1 }, { maxWeight: 0 }, { nope: 1 }]) {
      expect(() => createFileReadCache(options as never)).toThrow(ValidationError)
    }
    const cache = createFileReadCache<string>()
    expect(() => cache.lookup(42 as never)).toThrow(ValidationError)
    expect(() => cache.store('x', statStamp(dir)!, 'v', 0, -1)).toThrow(ValidationError)
  })
})
