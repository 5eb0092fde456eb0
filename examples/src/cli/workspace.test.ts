import { existsSync } from 'node:fs'
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, expect, test } from 'vitest'
import { DEMO_TEMPLATE_FILES } from '../demo-workspace.js'
import { prepareWorkspace } from './workspace.js'

const dirs: string[] = []
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })))
})

test('missing (with create) or empty: filled from the template; otherwise used as it is; a file is refused', async () => {
  const base = await mkdtemp(join(tmpdir(), 'demo-ws-'))
  dirs.push(base)
  const missing = join(base, 'a', 'b')
  await expect(prepareWorkspace(missing)).rejects.toThrow(
    `--workspace ${missing}: no such directory; pass --init to create a demo workspace there`,
  )
  expect(existsSync(missing)).toBe(false)
  expect(await prepareWorkspace(missing, { create: true })).toEqual({ dir: missing, created: true })
  for (const file of DEMO_TEMPLATE_FILES) expect(existsSync(join(missing, file))).toBe(true)
  const top = (await readdir(missing)).sort()
  expect(top).toEqual(['AGENTS.md', 'PREFILL.md', 'README.md', 'SOUL.md', 'data', 'src'])
  const own = join(base, 'own')
  await prepareWorkspace(join(base, 'empty'), { create: true }).then((r) =>
    expect(r.created).toBe(true),
  )
  await writeFile(join(base, 'file.txt'), 'x')
  await expect(prepareWorkspace(join(base, 'file.txt'))).rejects.toThrow(
    `cannot use --workspace ${join(base, 'file.txt')}: not a directory`,
  )
  await prepareWorkspace(own, { create: true })
  await writeFile(join(own, 'mine.md'), 'mine')
  await rm(join(own, 'README.md'))
  expect(await prepareWorkspace(own)).toEqual({ dir: own, created: false })
  expect((await readdir(own)).includes('README.md')).toBe(false)
})

test('a place where the state directory cannot be made (/proc) is refused at once, not spun on', async () => {
  await expect(prepareWorkspace('/proc')).rejects.toThrow(
    /cannot use --workspace \/proc: (cannot create its state directory \.contextkit|not writable)/,
  )
})
