import { type ChildProcess, spawn } from 'node:child_process'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { readWithinRoot } from './read-within-root.js'

const SECRET = 'TOP-SECRET-7f3a9c'
const READS = 10_000
const fixture = fileURLToPath(new URL('./fixtures/swapper.mjs', import.meta.url))

let base: string
let root: string
let outside: string
let child: ChildProcess | undefined

beforeAll(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'preload-race-'))
  root = path.join(base, 'root')
  outside = path.join(base, 'outside')
  await mkdir(root)
  await mkdir(outside)
  await writeFile(path.join(outside, 'secret.txt'), `${SECRET}\n`)
  await writeFile(path.join(root, 'swap.txt'), 'safe content\n')
})

afterAll(async () => {
  if (child && child.exitCode === null) child.kill('SIGKILL')
  await rm(base, { recursive: true, force: true })
})

test(`a concurrent process swapping files for symlinks leaks nothing over ${READS} reads`, async () => {
  const stopFile = path.join(base, 'stop')
  const proc = spawn(process.execPath, [fixture, root, outside, stopFile, '120000'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  child = proc
  let output = ''
  proc.stdout!.setEncoding('utf8')
  proc.stdout!.on('data', (chunk: string) => {
    output += chunk
  })
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()))
  await new Promise<void>((resolve, reject) => {
    proc.once('error', reject)
    proc.stdout!.once('data', () => resolve())
  })

  let leaks = 0
  let texts = 0
  let unexpected = 0
  const refusals = new Map<string, number>()
  const targets = ['swap.txt', 'swapdir/secret.txt']
  const started = Date.now()
  const batch = 16
  for (let i = 0; i < READS; i += batch) {
    const results = await Promise.all(
      Array.from({ length: batch }, (_, k) => readWithinRoot(root, targets[(i + k) % 2]!)),
    )
    for (const r of results) {
      if (r.ok) {
        texts++
        if (r.file.text.includes(SECRET)) leaks++
        // A reader may catch the writer between creating the file and writing it: '' is safe too.
        if (r.file.text !== 'safe content\n' && r.file.text !== '') unexpected++
      } else {
        refusals.set(r.error.code, (refusals.get(r.error.code) ?? 0) + 1)
      }
    }
  }
  const elapsed = Date.now() - started
  // The swapper runs until told to stop, so it swapped for the whole of the reads, however long
  // they took on a loaded machine; it reports how many swaps it made.
  await writeFile(stopFile, '')
  await exited
  const swaps = Number(/swaps (\d+)/.exec(output)?.[1] ?? 0)
  const total = texts + [...refusals.values()].reduce((a, b) => a + b, 0)

  expect(total).toBeGreaterThanOrEqual(READS)
  expect(leaks).toBe(0)
  expect(unexpected).toBe(0)
  // The race really happened: both safe reads and outside-root refusals were seen.
  expect(texts).toBeGreaterThan(0)
  expect(refusals.get('preload_path_outside_root') ?? 0).toBeGreaterThan(0)
  // Only the refusals a swap can cause.
  for (const code of refusals.keys()) {
    expect(['preload_path_outside_root', 'preload_file_not_found']).toContain(code)
  }
  // The swaps interleaved with the reads: many of them, not a handful at the start or the end
  // (the swapper checks for the stop file every 32 swaps, so at most 32 came after the reads).
  expect(swaps).toBeGreaterThan(100)
  console.info(
    `race: ${total} reads in ${elapsed} ms against ${swaps} swaps, ${texts} texts, refusals`,
    refusals,
  )
}, 120_000)
