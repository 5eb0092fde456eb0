import { execFileSync } from 'node:child_process'
import { link, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { type FileWithinRoot, openWithinRoot } from './open-within-root.js'
import { UnsafeWriteError } from './within-root.js'

let base: string
let root: string
let outside: string
beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'ck-open-'))
  root = join(base, 'root')
  outside = join(base, 'outside')
  await mkdir(join(root, 'src', 'deep'), { recursive: true })
  await mkdir(join(outside, 'sub'), { recursive: true })
  await writeFile(join(root, 'src', 'app.ts'), 'app\n')
  await writeFile(join(root, 'src', 'deep', 'x.txt'), 'deep\n')
  await writeFile(join(outside, 'secret.txt'), 'SECRET\n')
  execFileSync('mkfifo', [join(outside, 'pipe')])
  // links that stay inside the root
  await symlink('src/app.ts', join(root, 'rel-link.ts'))
  await symlink(join(root, 'src', 'app.ts'), join(root, 'abs-link.ts'))
  await symlink('src', join(root, 'src-dir'))
  await symlink('../app.ts', join(root, 'src', 'deep', 'up.ts'))
  await symlink('rel-link.ts', join(root, 'chain.ts'))
  await symlink('src-dir/deep/../app.ts', join(root, 'dots.ts'))
  // links that leave it
  await symlink(join(outside, 'secret.txt'), join(root, 'leak.txt'))
  await symlink('../outside/secret.txt', join(root, 'leak-rel.txt'))
  await symlink(outside, join(root, 'outdir'))
  await symlink('../root/src/app.ts', join(root, 'out-and-in.ts'))
  await symlink('/dev/zero', join(root, 'zero'))
  await symlink('loop-b', join(root, 'loop-a'))
  await symlink('loop-a', join(root, 'loop-b'))
  await symlink('gone.txt', join(root, 'dangling'))
  await symlink('.', join(root, 'here'))
})
afterAll(async () => {
  await rm(base, { recursive: true, force: true })
})

async function text(opened: Promise<FileWithinRoot>): Promise<{ text: string; rel: string }> {
  const { handle, relPath } = await opened
  try {
    return { text: await handle.readFile('utf8'), rel: relPath }
  } finally {
    await handle.close()
  }
}

async function refusal(p: Promise<FileWithinRoot>): Promise<Record<string, unknown>> {
  const error = await p.then(
    async (f) => {
      await f.handle.close()
      return undefined
    },
    (e: unknown) => e,
  )
  expect(UnsafeWriteError.isInstance(error)).toBe(true)
  return (error as UnsafeWriteError).details
}

const follow = { followLinks: true }

describe('openWithinRoot (no links followed: the default)', () => {
  test('opens a regular file and says where it is', async () => {
    const opened = await openWithinRoot(root, 'src/deep/x.txt')
    expect(opened).toMatchObject({
      path: join(root, 'src', 'deep', 'x.txt'),
      relPath: 'src/deep/x.txt',
      viaLink: false,
    })
    expect(await opened.handle.readFile('utf8')).toBe('deep\n')
    await opened.handle.close()
  })

  test('refuses every link, inside or out', async () => {
    for (const rel of ['rel-link.ts', 'src-dir/app.ts', 'leak.txt', 'outdir/secret.txt']) {
      expect((await refusal(openWithinRoot(root, rel))).reason).toBe('symlink')
    }
  })

  test('a file with two names is read (only writes refuse hard links)', async () => {
    await link(join(root, 'src', 'app.ts'), join(root, 'hard.ts'))
    expect((await text(openWithinRoot(root, 'hard.ts'))).text).toBe('app\n')
  })
})

describe('openWithinRoot with followLinks', () => {
  test.each([
    ['rel-link.ts', 'src/app.ts'],
    ['abs-link.ts', 'src/app.ts'],
    ['src-dir/app.ts', 'src/app.ts'],
    ['src/deep/up.ts', 'src/app.ts'],
    ['chain.ts', 'src/app.ts'],
    ['dots.ts', 'src/app.ts'],
    ['here/here/src/app.ts', 'src/app.ts'],
  ])('%s leads inside the root, to %s', async (rel, real) => {
    const opened = await openWithinRoot(root, rel, follow)
    expect(opened.viaLink).toBe(true)
    expect(opened.path).toBe(join(root, ...real.split('/')))
    expect(await text(Promise.resolve(opened))).toEqual({ text: 'app\n', rel: real })
  })

  test('a root given through a link works, and an absolute target spelled through it', async () => {
    await symlink(root, join(base, 'root-link'))
    const opened = await openWithinRoot(join(base, 'root-link'), 'src/app.ts', follow)
    expect(opened.path).toBe(join(root, 'src', 'app.ts'))
    await opened.handle.close()
    await symlink(join(base, 'root-link', 'src', 'app.ts'), join(root, 'via-root-link.ts'))
    const via = openWithinRoot(join(base, 'root-link'), 'via-root-link.ts', follow)
    expect((await text(via)).text).toBe('app\n')
  })

  test.each([
    ['leak.txt', 'file'],
    ['leak-rel.txt', 'file'],
    ['zero', 'file'],
    ['outdir/secret.txt', 'directory'],
    ['outdir/pipe', 'directory'],
    ['outdir/sub', 'directory'],
    ['out-and-in.ts', 'file'],
  ])('%s leads outside: refused without looking there (at %s)', async (rel, at) => {
    expect(await refusal(openWithinRoot(root, rel, follow))).toMatchObject({
      reason: 'leaves_root',
      at,
      path: rel,
    })
  })
})

describe('openWithinRoot with followLinks: what is not a file', () => {
  test('a loop of links, a dangling link, a directory', async () => {
    expect((await refusal(openWithinRoot(root, 'loop-a', follow))).reason).toBe('symlink')
    await expect(openWithinRoot(root, 'dangling', follow)).rejects.toMatchObject({
      code: 'ENOENT',
    })
    expect(await refusal(openWithinRoot(root, 'src-dir', follow))).toMatchObject({
      reason: 'not_a_file',
      kind: 'directory',
    })
    expect(await refusal(openWithinRoot(root, 'here', follow))).toMatchObject({
      reason: 'not_a_file',
      kind: 'directory',
    })
    expect(await refusal(openWithinRoot(root, 'src/app.ts/x', follow))).toMatchObject({
      reason: 'not_a_directory',
    })
  })

  test('FIFOs and sockets inside the root are refused by kind, without blocking', async () => {
    execFileSync('mkfifo', [join(root, 'fifo')])
    expect(await refusal(openWithinRoot(root, 'fifo', follow))).toMatchObject({
      reason: 'not_a_file',
      kind: 'fifo',
    })
    const server: Server = createServer()
    await new Promise<void>((resolve) => server.listen(join(root, 'sock'), resolve))
    try {
      expect(await refusal(openWithinRoot(root, 'sock', follow))).toMatchObject({
        reason: 'not_a_file',
        kind: 'socket',
      })
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  })

  test('bad paths and options are refused before any I/O', async () => {
    expect((await refusal(openWithinRoot(root, '../outside/secret.txt', follow))).reason).toBe(
      'bad_path',
    )
    await expect(
      openWithinRoot(root, 'src/app.ts', { followLinks: 'yes' as never }),
    ).rejects.toThrow(/followLinks/)
    await expect(openWithinRoot(root, 'src/app.ts', null as never)).rejects.toThrow(/options/)
  })
})
