import { execFileSync } from 'node:child_process'
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import {
  BinaryFileError,
  FileNotFoundError,
  FileTooLargeError,
  InvalidPathError,
  InvalidUtf8Error,
  isPreloadRefusal,
  NotAFileError,
  PathDeniedError,
  PathOutsideRootError,
  type PreloadRefusalError,
  RootUnavailableError,
} from './errors.js'
import { type ReadResult, readWithinRoot } from './read-within-root.js'

let base: string
let root: string

function refusal(result: ReadResult): PreloadRefusalError {
  if (result.ok) throw new Error(`expected a refusal, got the text of ${result.file.path}`)
  expect(isPreloadRefusal(result.error)).toBe(true)
  expect(result.error.recoverable).toBe(true)
  return result.error
}

function text(result: ReadResult): string {
  if (!result.ok) throw new Error(`expected text, got ${result.error.code}`)
  return result.file.text
}

beforeAll(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'preload-read-'))
  root = path.join(base, 'root')
  await mkdir(path.join(root, 'src', 'deep'), { recursive: true })
  await writeFile(path.join(root, 'src', 'app.ts'), 'export const app = 1\n')
  await writeFile(path.join(root, 'src', 'deep', 'x.txt'), 'deep\n')
  await mkdir(path.join(base, 'root_sibling'))
  await writeFile(path.join(base, 'root_sibling', 'secret.txt'), 'SIBLING SECRET')
  await mkdir(path.join(base, 'outside'))
  await writeFile(path.join(base, 'outside', 'secret.txt'), 'OUTSIDE SECRET')
})

afterAll(async () => {
  await rm(base, { recursive: true, force: true })
})

describe('readWithinRoot: reading', () => {
  test('reads a file inside the root, with metadata', async () => {
    const result = await readWithinRoot(root, 'src/app.ts')
    expect(result.ok).toBe(true)
    if (!result.ok) return
    expect(result.file.text).toBe('export const app = 1\n')
    expect(result.file.path).toBe('src/app.ts')
    expect(result.file.lines).toBe(1)
    expect(result.file.bytes).toBe(21)
    expect(result.file.realPath.endsWith(path.join('root', 'src', 'app.ts'))).toBe(true)
  })

  test('folds ./ and inner .. that stay inside', async () => {
    expect(text(await readWithinRoot(root, './src/deep/../app.ts'))).toContain('app = 1')
  })

  test('removes a UTF-8 BOM and reports it', async () => {
    await writeFile(path.join(root, 'bom.json'), Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d]))
    const result = await readWithinRoot(root, 'bom.json')
    expect(result.ok && result.file.text).toBe('{}')
    expect(result.ok && result.file.bom).toBe(true)
    expect(JSON.parse(text(result))).toEqual({})
  })

  test('cuts very long lines with a marker and counts them', async () => {
    await writeFile(path.join(root, 'min.js'), `short\n${'a'.repeat(500)}\nend`)
    const result = await readWithinRoot(root, 'min.js', { maxLineLength: 100 })
    if (!result.ok) throw new Error(result.error.code)
    expect(result.file.cutLines).toBe(1)
    expect(result.file.cutChars).toBe(400)
    const lines = result.file.text.split('\n')
    expect(lines[0]).toBe('short')
    expect(lines[1]).toBe(`${'a'.repeat(100)} [… line cut: 400 more characters]`)
    expect(lines[2]).toBe('end')
    expect(result.file.lines).toBe(3)
  })

  test('follows a symlink that stays inside the root', async () => {
    await symlink(path.join(root, 'src', 'app.ts'), path.join(root, 'link-in.ts'))
    expect(text(await readWithinRoot(root, 'link-in.ts'))).toContain('app = 1')
  })

  test('a root given through a symlink works', async () => {
    await symlink(root, path.join(base, 'root-link'))
    expect(text(await readWithinRoot(path.join(base, 'root-link'), 'src/app.ts'))).toContain('app')
  })
})

describe('readWithinRoot: refusals of the path string (every OS)', () => {
  const cases: Array<[string, string, string]> = [
    ['/etc/passwd', PathOutsideRootError.code, 'absolute'],
    ['../root_sibling/secret.txt', PathOutsideRootError.code, 'escapes_root'],
    ['src/../../outside/secret.txt', PathOutsideRootError.code, 'escapes_root'],
    ['..', PathOutsideRootError.code, 'escapes_root'],
    ['src\\app.ts', InvalidPathError.code, 'backslash'],
    ['..\\outside\\secret.txt', InvalidPathError.code, 'backslash'],
    ['C:/Windows/win.ini', InvalidPathError.code, 'drive_letter'],
    ['c:secret.txt', InvalidPathError.code, 'drive_letter'],
    ['\\\\server\\share\\x.txt', InvalidPathError.code, 'unc_or_device_prefix'],
    ['\\\\?\\C:\\x.txt', InvalidPathError.code, 'unc_or_device_prefix'],
    ['//server/share/x.txt', InvalidPathError.code, 'unc_or_device_prefix'],
    ['CON', InvalidPathError.code, 'device_name'],
    ['src/nul.txt', InvalidPathError.code, 'device_name'],
    ['com1', InvalidPathError.code, 'device_name'],
    ['LPT1.tar.gz', InvalidPathError.code, 'device_name'],
    ['aux .md', InvalidPathError.code, 'device_name'],
    ['src/app.ts:hidden', InvalidPathError.code, 'alternate_data_stream'],
    ['src/app.ts::$DATA', InvalidPathError.code, 'alternate_data_stream'],
    ['src/app.ts.', InvalidPathError.code, 'trailing_dot_or_space'],
    ['src/app.ts ', InvalidPathError.code, 'trailing_dot_or_space'],
    ['src./app.ts', InvalidPathError.code, 'trailing_dot_or_space'],
    ['src/app.ts\0.txt', InvalidPathError.code, 'nul_byte'],
    ['src/a\nb', InvalidPathError.code, 'control_character'],
    ['src/what?.ts', InvalidPathError.code, 'reserved_character'],
    ['', InvalidPathError.code, 'empty'],
    ['./', InvalidPathError.code, 'empty'],
    [`${'a/'.repeat(600)}x`, InvalidPathError.code, 'path_too_long'],
    [`${'b'.repeat(256)}.txt`, InvalidPathError.code, 'component_too_long'],
  ]
  test.each(cases)('%j → %s (%s)', async (input, code, reason) => {
    const error = refusal(await readWithinRoot(root, input))
    expect(error.code).toBe(code)
    expect(error.details.reason).toBe(reason)
  })

  test('the sibling-prefix trick (root_sibling next to root) is refused', async () => {
    const error = refusal(await readWithinRoot(root, '../root_sibling/secret.txt'))
    expect(PathOutsideRootError.isInstance(error)).toBe(true)
  })

  test('a non-string path is refused, not thrown', async () => {
    const error = refusal(await readWithinRoot(root, 42 as unknown as string))
    expect(error.details.reason).toBe('not_a_string')
  })
})

describe('readWithinRoot: refusals on disk', () => {
  test('a final symlink leaving the root', async () => {
    await symlink(path.join(base, 'outside', 'secret.txt'), path.join(root, 'leak.txt'))
    const error = refusal(await readWithinRoot(root, 'leak.txt'))
    expect(PathOutsideRootError.isInstance(error)).toBe(true)
    expect(error.details.reason).toBe('symlink')
  })

  test('an intermediate directory symlink leaving the root', async () => {
    await symlink(path.join(base, 'outside'), path.join(root, 'outdir'))
    const error = refusal(await readWithinRoot(root, 'outdir/secret.txt'))
    expect(PathOutsideRootError.isInstance(error)).toBe(true)
    expect(error.details.reason).toBe('resolves_outside')
  })

  test('nothing about a target outside the root is reported, not even its kind', async () => {
    const out = path.join(base, 'outside-kinds')
    await mkdir(path.join(out, 'subdir'), { recursive: true })
    execFileSync('mkfifo', [path.join(out, 'pipe')])
    await symlink(out, path.join(root, 'kinds'))
    for (const rel of ['kinds/pipe', 'kinds/subdir']) {
      const error = refusal(await readWithinRoot(root, rel))
      expect(error.code).toBe('preload_path_outside_root')
      expect(error.details).toEqual({ path: rel, reason: 'resolves_outside' })
    }
  })

  test('a symlink to the sibling directory sharing the prefix', async () => {
    await symlink(path.join(base, 'root_sibling'), path.join(root, 'sib'))
    const error = refusal(await readWithinRoot(root, 'sib/secret.txt'))
    expect(error.code).toBe('preload_path_outside_root')
  })

  test('a symlink to /dev/zero is refused without reading forever', async () => {
    await symlink('/dev/zero', path.join(root, 'zero'))
    const error = refusal(await readWithinRoot(root, 'zero'))
    expect(error.code).toBe('preload_path_outside_root')
  })

  test('a FIFO is refused without hanging', async () => {
    execFileSync('mkfifo', [path.join(root, 'pipe')])
    const started = Date.now()
    const error = refusal(await readWithinRoot(root, 'pipe'))
    expect(NotAFileError.isInstance(error)).toBe(true)
    expect(error.details.kind).toBe('fifo')
    expect(Date.now() - started).toBeLessThan(2000)
  })

  test('a unix socket is refused without hanging', async () => {
    const sock = path.join(root, 'sock')
    const server: Server = createServer()
    await new Promise<void>((resolve) => server.listen(sock, resolve))
    try {
      const error = refusal(await readWithinRoot(root, 'sock'))
      expect(NotAFileError.isInstance(error)).toBe(true)
      expect(error.details.kind).toBe('socket')
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  })

  test('a directory is not a file', async () => {
    const error = refusal(await readWithinRoot(root, 'src'))
    expect(error.code).toBe(NotAFileError.code)
    expect(error.details.kind).toBe('directory')
  })

  test('a missing file, and a file under a file', async () => {
    expect(refusal(await readWithinRoot(root, 'nope.ts')).code).toBe(FileNotFoundError.code)
    expect(refusal(await readWithinRoot(root, 'src/app.ts/x')).code).toBe(FileNotFoundError.code)
  })

  test('a dangling symlink is reported missing', async () => {
    await symlink(path.join(root, 'gone.txt'), path.join(root, 'dangling'))
    expect(refusal(await readWithinRoot(root, 'dangling')).code).toBe(FileNotFoundError.code)
  })

  test('a file over the byte cap is refused, whatever its line count', async () => {
    await writeFile(path.join(root, 'one-line.txt'), 'x'.repeat(5000))
    const error = refusal(await readWithinRoot(root, 'one-line.txt', { maxBytes: 4096 }))
    expect(FileTooLargeError.isInstance(error)).toBe(true)
    expect(error.details).toMatchObject({ size: 5000, maxBytes: 4096 })
    expect(text(await readWithinRoot(root, 'one-line.txt', { maxBytes: 5000 }))).toHaveLength(
      4000 + ' [… line cut: 1000 more characters]'.length,
    )
  })

  test('a NUL byte in the first 8 KB means binary; later ones do not', async () => {
    await writeFile(path.join(root, 'img.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1]))
    expect(refusal(await readWithinRoot(root, 'img.png')).code).toBe(BinaryFileError.code)
    const late = Buffer.concat([Buffer.from('abc\n'.repeat(2250)), Buffer.from([0])])
    await writeFile(path.join(root, 'late-nul.txt'), late)
    expect(text(await readWithinRoot(root, 'late-nul.txt'))).toHaveLength(9001)
  })

  test('invalid UTF-8 is reported, not replaced with U+FFFD', async () => {
    await writeFile(path.join(root, 'latin1.txt'), Buffer.from('caf\xe9 au lait', 'latin1'))
    const error = refusal(await readWithinRoot(root, 'latin1.txt'))
    expect(InvalidUtf8Error.isInstance(error)).toBe(true)
  })

  test('the default deny list refuses secrets, and can be changed or turned off', async () => {
    await mkdir(path.join(root, '.git'), { recursive: true })
    await writeFile(path.join(root, '.git', 'config'), '[core]\n')
    await writeFile(path.join(root, '.env'), 'TOKEN=1\n')
    await writeFile(path.join(root, '.env.local'), 'TOKEN=2\n')
    await writeFile(path.join(root, 'id_rsa'), 'KEY\n')
    await writeFile(path.join(root, 'server.PEM'), 'KEY\n')
    await writeFile(path.join(root, 'tls.key'), 'KEY\n')
    for (const p of ['.git/config', '.env', '.env.local', 'id_rsa', 'server.PEM', 'tls.key']) {
      const error = refusal(await readWithinRoot(root, p))
      expect(PathDeniedError.isInstance(error), p).toBe(true)
    }
    expect(text(await readWithinRoot(root, '.env', { deny: false }))).toBe('TOKEN=1\n')
    const custom = await readWithinRoot(root, 'src/app.ts', { deny: ['src/'] })
    expect(refusal(custom).details.pattern).toBe('src/')
  })

  test('the deny list also applies to where a symlink leads', async () => {
    await symlink(path.join(root, '.env'), path.join(root, 'innocent.txt'))
    expect(refusal(await readWithinRoot(root, 'innocent.txt')).code).toBe(PathDeniedError.code)
    await symlink(path.join(root, '.git'), path.join(root, 'gitdir'))
    expect(refusal(await readWithinRoot(root, 'gitdir/config')).code).toBe(PathDeniedError.code)
  })

  test('a missing root is reported, not thrown', async () => {
    const error = refusal(await readWithinRoot(path.join(base, 'no-such-root'), 'a.txt'))
    expect(RootUnavailableError.isInstance(error)).toBe(true)
  })

  test('malformed limits are a programming error and throw a ValidationError', async () => {
    await expect(readWithinRoot(root, 'src/app.ts', { maxBytes: -1 })).rejects.toMatchObject({
      code: 'validation_error',
    })
  })
})
