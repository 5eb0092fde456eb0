import { existsSync } from 'node:fs'
import { link, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, expect, test } from 'vitest'
import { WriteRefusedError, writeWithinRoot } from './write-file-tool.js'

const dirs: string[] = []
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })))
})

test('writes inside the root (creating directories); refuses escapes, secrets, dotfiles, scripts, symlinks', async () => {
  const base = await mkdtemp(join(tmpdir(), 'write-within-'))
  dirs.push(base)
  const root = join(base, 'project')
  const outside = join(base, 'outside')
  await mkdir(root)
  await mkdir(outside)
  expect(await writeWithinRoot(root, './src/new/App.jsx', 'hi\n')).toEqual({
    path: 'src/new/App.jsx',
    bytes: 3,
  })
  expect(await readFile(join(root, 'src/new/App.jsx'), 'utf8')).toBe('hi\n')
  await symlink(outside, join(root, 'linked'))
  await symlink(join(outside, 'target.txt'), join(root, 'file-link.txt'))
  const refusals: Record<string, string> = {
    '../escape.txt': 'escapes',
    '/etc/passwd': 'Absolute',
    '.env': 'deny list',
    'config/.npmrc': 'deny list',
    '.github/workflows/ci.yml': 'dotfiles',
    'bin/deploy.sh': 'executable scripts',
    'linked/x.txt': '"linked" is a symlink',
    'file-link.txt': 'it is a symlink',
    'src\\\\win.txt': 'Refused',
  }
  for (const [path, why] of Object.entries(refusals)) {
    const error = await writeWithinRoot(root, path, 'x').catch((e: unknown) => e)
    expect(WriteRefusedError.isInstance(error), path).toBe(true)
    expect((error as Error).message, path).toContain(why)
  }
  expect(existsSync(join(outside, 'x.txt'))).toBe(false)
  expect(existsSync(join(outside, 'target.txt'))).toBe(false)
  await expect(writeWithinRoot(root, 'big.txt', 'x'.repeat(20), { maxBytes: 10 })).rejects.toThrow(
    'over the limit',
  )
})

test('a hard-linked target is refused: the file outside keeps its bytes', async () => {
  const base = await mkdtemp(join(tmpdir(), 'write-hard-'))
  dirs.push(base)
  const root = join(base, 'project')
  await mkdir(root)
  await writeFile(join(base, 'outside.txt'), 'keep')
  await link(join(base, 'outside.txt'), join(root, 'hard.txt'))
  const error = await writeWithinRoot(root, 'hard.txt', 'overwritten').catch((e: unknown) => e)
  expect(WriteRefusedError.isInstance(error)).toBe(true)
  expect((error as Error).message).toContain('hard links')
  expect(await readFile(join(base, 'outside.txt'), 'utf8')).toBe('keep')
  expect(await writeWithinRoot(root, 'fresh.txt', 'new')).toEqual({ path: 'fresh.txt', bytes: 3 })
  expect(await writeWithinRoot(root, 'fresh.txt', 'newer')).toEqual({ path: 'fresh.txt', bytes: 5 })
  expect(await readFile(join(root, 'fresh.txt'), 'utf8')).toBe('newer')
})
