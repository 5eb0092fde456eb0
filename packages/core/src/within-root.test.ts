import { link, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { openWithinRoot } from './open-within-root.js'
import {
  appendWithinRoot,
  appendWithinRootSync,
  mkdirWithinRoot,
  replaceWithinRoot,
  UnsafeWriteError,
  unlinkWithinRoot,
} from './within-root.js'

let base: string
let root: string
let outside: string
beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'ck-within-'))
  root = join(base, 'root')
  outside = join(base, 'outside')
  await mkdir(root)
  await mkdir(outside)
})
afterEach(async () => {
  await rm(base, { recursive: true, force: true })
})

async function reason(p: Promise<unknown>): Promise<unknown> {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(UnsafeWriteError.isInstance(error)).toBe(true)
  expect((error as UnsafeWriteError).code).toBe('unsafe_write')
  return (error as UnsafeWriteError).details.reason
}

describe('appendWithinRoot', () => {
  test('creates parents, appends, and starts each append on a fresh line', async () => {
    const first = await appendWithinRoot(root, 'a/b/log.jsonl', '{"n":1}\n')
    expect(first.created).toBe(true)
    await writeFile(join(root, 'a/b/log.jsonl'), '{"n":1}\n{"n":2, "torn', { flag: 'w' })
    const second = await appendWithinRoot(root, 'a/b/log.jsonl', '{"n":3}\n', { fsync: true })
    expect(second).toMatchObject({ created: false, bytes: 9 })
    appendWithinRootSync(root, 'a/b/log.jsonl', '{"n":4}\n')
    const lines = (await readFile(join(root, 'a/b/log.jsonl'), 'utf8')).split('\n')
    expect(lines).toEqual(['{"n":1}', '{"n":2, "torn', '{"n":3}', '{"n":4}', ''])
  })

  test('a planted symlinked directory is refused and nothing is written outside', async () => {
    await symlink(outside, join(root, '.contextkit'))
    expect(await reason(appendWithinRoot(root, '.contextkit/traces/t.jsonl', 'x\n'))).toBe(
      'symlink',
    )
    expect(() => appendWithinRootSync(root, '.contextkit/t.jsonl', 'x\n')).toThrow(UnsafeWriteError)
    expect(await readdir(outside)).toEqual([])
  })

  test('a symlinked or hard-linked final file is refused, its target untouched', async () => {
    await writeFile(join(outside, 'victim'), 'keep')
    await symlink(join(outside, 'victim'), join(root, 's.jsonl'))
    await link(join(outside, 'victim'), join(root, 'h.jsonl'))
    expect(await reason(appendWithinRoot(root, 's.jsonl', 'x\n'))).toBe('symlink')
    expect(await reason(appendWithinRoot(root, 'h.jsonl', 'x\n'))).toBe('hard_link')
    expect(await readFile(join(outside, 'victim'), 'utf8')).toBe('keep')
  })

  test('paths that are not clean relative paths are refused before any I/O', async () => {
    for (const bad of ['../x', '/etc/passwd', 'a\\..\\..\\x', 'C:foo', '', 'a/\0']) {
      expect(await reason(appendWithinRoot(root, bad, 'x'))).toBe('bad_path')
    }
    await expect(appendWithinRoot(join(base, 'missing'), 'x', 'x')).rejects.toMatchObject({
      code: 'ENOENT',
    })
    // a caller's bug is a ValidationError naming the argument
    await expect(appendWithinRoot(42 as never, 'x', 'x')).rejects.toThrow(/root must be/)
    await expect(appendWithinRoot(root, 'x', 42 as never)).rejects.toThrow(/data must be/)
    await expect(replaceWithinRoot(root, 'x', 'x', null as never)).rejects.toThrow(/options/)
    await mkdir(join(root, 'dir'))
    expect(await reason(appendWithinRoot(root, 'dir', 'x'))).toBe('not_a_file')
    await writeFile(join(root, 'file'), '')
    expect(await reason(appendWithinRoot(root, 'file/x', 'x'))).toBe('not_a_directory')
  })
})

describe('replaceWithinRoot', () => {
  test('replaces atomically and leaves no temp file', async () => {
    await replaceWithinRoot(root, 'd/state.json', 'one')
    const second = await replaceWithinRoot(root, 'd/state.json', new TextEncoder().encode('two'))
    expect(second.created).toBe(false)
    expect(await readFile(join(root, 'd/state.json'), 'utf8')).toBe('two')
    expect(await readdir(join(root, 'd'))).toEqual(['state.json'])
  })

  test('refuses a hard-linked, symlinked or symlink-parented target; outside unchanged', async () => {
    await writeFile(join(outside, 'victim'), 'keep')
    await link(join(outside, 'victim'), join(root, 'hard.txt'))
    await symlink(join(outside, 'victim'), join(root, 'soft.txt'))
    await symlink(outside, join(root, 'sub'))
    expect(await reason(replaceWithinRoot(root, 'hard.txt', 'x'))).toBe('hard_link')
    expect(await reason(replaceWithinRoot(root, 'soft.txt', 'x'))).toBe('symlink')
    expect(await reason(replaceWithinRoot(root, 'sub/new.txt', 'x'))).toBe('symlink')
    expect(await readFile(join(outside, 'victim'), 'utf8')).toBe('keep')
    expect(await readdir(outside)).toEqual(['victim'])
    expect((await readdir(root)).sort()).toEqual(['hard.txt', 'soft.txt', 'sub'])
  })
})

describe('openWithinRoot and mkdirWithinRoot', () => {
  test('reads a file inside; refuses a symlink out', async () => {
    await writeFile(join(outside, 'secret'), 'secret')
    await mkdirWithinRoot(root, 'x/y')
    await writeFile(join(root, 'x/y/ok.txt'), 'ok')
    await symlink(join(outside, 'secret'), join(root, 'x/link.txt'))
    const { handle } = await openWithinRoot(root, 'x/y/ok.txt')
    expect(await handle.readFile('utf8')).toBe('ok')
    await handle.close()
    expect(await reason(openWithinRoot(root, 'x/link.txt'))).toBe('symlink')
    await symlink(outside, join(root, 'out'))
    expect(await reason(mkdirWithinRoot(root, 'out/z'))).toBe('symlink')
    expect(await reason(unlinkWithinRoot(root, 'out/secret'))).toBe('symlink')
    expect(await unlinkWithinRoot(root, 'x/link.txt')).toBe(true)
    expect(await unlinkWithinRoot(root, 'x/link.txt')).toBe(false)
    expect(await unlinkWithinRoot(root, 'nope/x')).toBe(false)
    expect(await readdir(outside)).toEqual(['secret'])
  })
})
