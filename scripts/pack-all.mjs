#!/usr/bin/env node
// `pnpm pack:all`: pack every public package under packages/ into ./packs (or the folder given as
// the first argument), one tarball per package named without its version
// (`packs/contextkit-agent-loop.tgz`), so an app installs from them with the README's lines
// before anything is published: `npm i ../contextkit/packs/contextkit-agent-loop.tgz …`.
// The root script builds first; this file packs what is built (the package tests call it).
import { execFile } from 'node:child_process'
import { mkdir, readdir, readFile, rename, rm } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const exec = promisify(execFile)

/** `@contextkit/agent-loop` → `contextkit-agent-loop.tgz`: the file name `pack:all` writes. */
export function packFileName(name) {
  return `${name.replace(/^@/, '').replace('/', '-')}.tgz`
}

/**
 * Pack every public package into `destination` (created; tarballs of an earlier run replaced),
 * with the pinned pnpm, and name each tarball {@link packFileName}. Resolves to the paths written.
 */
export async function packAll(destination) {
  const out = resolve(destination)
  const staging = join(out, '.staging')
  await rm(staging, { recursive: true, force: true })
  await mkdir(staging, { recursive: true })
  const root = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8'))
  await exec(
    'npx',
    [
      '--yes',
      root.packageManager,
      '-r',
      '--filter',
      './packages/*',
      'pack',
      '--pack-destination',
      staging,
    ],
    { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 },
  )
  const written = []
  for (const file of (await readdir(staging)).sort()) {
    // pnpm names it `contextkit-agent-loop-0.0.0.tgz`: drop the version
    const target = join(out, file.replace(/-\d+\.\d+\.\d+(?:-[\w.]+)?\.tgz$/, '.tgz'))
    await rename(join(staging, file), target)
    written.push(target)
  }
  await rm(staging, { recursive: true, force: true })
  return written
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const destination = process.argv[2] ?? join(ROOT, 'packs')
  packAll(destination).then(
    (files) => {
      process.stdout.write(`packed ${files.length} packages into ${resolve(destination)}\n`)
    },
    (error) => {
      process.stderr.write(`pack:all: ${error.message}\n${error.stderr ?? ''}`)
      process.exitCode = 1
    },
  )
}
