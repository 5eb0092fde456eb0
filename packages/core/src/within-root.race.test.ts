import { type ChildProcess, spawn } from 'node:child_process'
import { mkdir, mkdtemp, readdir, rm, symlink } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, expect, test } from 'vitest'
import { appendWithinRootSync, replaceWithinRoot, UnsafeWriteError } from './within-root.js'

// A hostile process swaps `sub/` between a real directory and a symlink to a directory outside
// the root, as fast as it can, while we write through the helpers. Nothing may land outside.
// The issue asks for 100,000 writes with 0 escapes (about 20 s on 2 cores); RACE_WRITES=n changes it.
const WRITES = Number(process.env.RACE_WRITES ?? 100_000)

const SWAPPER = `
const fs = require('node:fs')
const [root, outside] = process.argv.slice(1)
const sub = root + '/sub', real = root + '/real-dir'
let parked = 0
// When the writer made a new sub/ while it was missing, park that one and go on.
const park = () => { try { fs.renameSync(sub, root + '/parked-' + parked++) } catch {} }
fs.mkdirSync(real)
process.send('ready')
for (;;) {
  try { fs.renameSync(sub, real) } catch { park() }
  try { fs.symlinkSync(outside, sub) } catch {}
  try { fs.unlinkSync(sub) } catch {}
  try { fs.renameSync(real, sub) } catch { park() }
}
`

let base: string
let swapper: ChildProcess | undefined
beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'ck-race-'))
})
afterEach(async () => {
  swapper?.kill('SIGKILL')
  swapper = undefined
  await rm(base, { recursive: true, force: true })
})

function countFiles(dir: string): Promise<number> {
  return readdir(dir, { recursive: true }).then((names) => names.length)
}

test(`under a directory-swap race, ${WRITES} writes leave 0 files outside the root`, {
  timeout: 180_000,
}, async () => {
  const root = join(base, 'root')
  const outside = join(base, 'outside')
  await mkdir(root)
  await mkdir(outside)
  await symlink(join(outside, 'never'), join(root, 'decoy')) // the root may hold links too
  const child = spawn(process.execPath, ['-e', SWAPPER, root, outside], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  })
  swapper = child
  await new Promise((resolve) => child.once('message', resolve))

  let written = 0
  let refused = 0
  let missing = 0
  for (let i = 0; i < WRITES; i++) {
    try {
      if (i % 20 === 0) await replaceWithinRoot(root, `sub/r${i % 7}.txt`, `${i}`, { fsync: false })
      else appendWithinRootSync(root, `sub/a${i % 13}.txt`, `${i}\n`)
      written++
    } catch (error) {
      if (UnsafeWriteError.isInstance(error)) refused++
      else missing++ // ENOENT: `sub` was renamed away mid-walk
    }
  }
  child.kill('SIGKILL')
  await new Promise((resolve) => child.once('exit', resolve))

  console.info(`race: ${WRITES} writes, ${written} written, ${refused} refused, ${missing} missing`)
  expect(await countFiles(outside)).toBe(0)
  expect(written + refused + missing).toBe(WRITES)
  // the race was real: some writes went in, some met the symlink
  expect(written).toBeGreaterThan(0)
  expect(refused).toBeGreaterThan(0)
})
