import { link, mkdir, mkdtemp, readdir, readFile, rm, symlink } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { UnsafeWriteError } from '@contextkit/core/node'
import { StateIoError } from '@contextkit/store-files'
import { afterEach, beforeEach, expect, test } from 'vitest'
import { emptySelfState } from './self-state.js'
import { saveSelfState } from './state-file.js'

let base: string
let workspace: string
let outside: string
beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'ck-state-links-'))
  workspace = join(base, 'ws')
  outside = join(base, 'outside')
  await mkdir(workspace)
  await mkdir(outside)
})
afterEach(() => rm(base, { recursive: true, force: true }))

async function refused(p: Promise<unknown>): Promise<void> {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(StateIoError.isInstance(error)).toBe(true)
  expect(UnsafeWriteError.isInstance((error as StateIoError).cause)).toBe(true)
}

test('a planted symlinked .contextkit/ is refused under root: nothing lands outside, no lock', async () => {
  await symlink(outside, join(workspace, '.contextkit'))
  const path = join(workspace, '.contextkit', 'self-state.json')
  await refused(saveSelfState(path, emptySelfState('s'), { root: workspace }))
  expect(await readdir(outside)).toEqual([])
})

test('a hard-linked state file is refused, the file it shares bytes with untouched', async () => {
  const victim = join(outside, 'victim.json')
  await saveSelfState(victim, emptySelfState('outside'))
  const before = await readFile(victim, 'utf8')
  await link(victim, join(workspace, 'self-state.json'))
  await refused(saveSelfState(join(workspace, 'self-state.json'), emptySelfState('s')))
  expect(await readFile(victim, 'utf8')).toBe(before)
})
