import { type ChildProcess, spawn } from 'node:child_process'
import { statSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'
import { build } from 'esbuild'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { bundleFixture, tempDir } from '../../../test-utils/temp-dir.js'
import { expectedEntry } from './crash-entries.js'
import { jsonlSessionStore } from './jsonl-store.js'
import { SESSION_WARNING_CODES } from './warning-codes.js'

let work: Awaited<ReturnType<typeof tempDir>>
let writer: string

beforeAll(async () => {
  work = await tempDir('crash')
  writer = await bundleFixture(
    new URL('./crash-writer.fixture.ts', import.meta.url),
    work.dir,
    build,
  )
})
afterAll(() => work.cleanup())

function start(dir: string, id: string, fsync: boolean, tag: string): ChildProcess {
  return spawn(process.execPath, [writer, dir, id, fsync ? '1' : '0', tag], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
}

function exited(child: ChildProcess): Promise<number | string | null> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve(child.exitCode ?? child.signalCode)
  }
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)))
}

async function ready(child: ChildProcess): Promise<void> {
  let err = ''
  child.stderr?.on('data', (d: Buffer) => {
    err += d.toString()
  })
  await new Promise<void>((resolve, reject) => {
    child.stdout?.once('data', () => resolve())
    child.once('exit', (code) => reject(new Error(`writer exited early (${code}): ${err}`)))
  })
}

describe('a writer killed mid-append (SIGKILL, real child processes)', () => {
  test('every load returns a prefix of what was written, over 60 kills', async () => {
    const dir = `${work.dir}/sessions`
    const trials = 60
    let torn = 0
    let grew = 0
    let total = 0
    for (let trial = 0; trial < trials; trial++) {
      // A new session every 6 trials keeps files small; within one, each writer continues
      // where the killed one stopped, after its torn tail.
      const id = `crash-${Math.floor(trial / 6)}`
      const child = start(dir, id, trial % 4 === 0, 'crash')
      await ready(child)
      const file = jsonlSessionStore(dir).pathOf(id)
      if (trial % 2 === 0) {
        // Kill the moment the file starts to grow: inside the write of a (multi-MB) batch.
        const before = statSync(file).size
        const until = Date.now() + 500
        while (Date.now() < until && statSync(file).size === before) {
          // busy-wait on purpose: a timer is far too coarse to land inside one write
        }
      } else {
        // Kill between or inside later writes: first let one write land (on a loaded machine
        // the writer's start can take longer than any fixed sleep), then a random moment more.
        const before = statSync(file).size
        const until = Date.now() + 5_000
        while (Date.now() < until && statSync(file).size === before) await sleep(1)
        await sleep(Math.random() * 40)
      }
      child.kill('SIGKILL')
      expect(await exited(child)).toBe('SIGKILL')

      const { entries, warnings } = await jsonlSessionStore(dir).load(id)
      expect(entries[0]).toMatchObject({ type: 'session', id })
      const messages = entries.slice(1)
      for (const [n, entry] of messages.entries()) expect(entry).toEqual(expectedEntry(n))
      // A torn tail is the last line; torn tails of earlier writers are now corrupt middle
      // lines (the next batch started on a fresh line after them). Nothing else is reported.
      for (const warning of warnings.slice(0, -1)) {
        expect(warning.code).toBe(SESSION_WARNING_CODES.corruptLine)
      }
      const last = warnings.at(-1)
      if (last) {
        expect([SESSION_WARNING_CODES.tornLine, SESSION_WARNING_CODES.corruptLine]).toContain(
          last.code,
        )
      }
      if (last?.code === SESSION_WARNING_CODES.tornLine) torn++
      if (trial % 6 === 0 || messages.length > total) grew++
      total = messages.length
    }
    // The kills must really have landed inside writes, or this test proves nothing.
    expect(torn).toBeGreaterThan(0)
    expect(grew).toBeGreaterThan(trials / 4)
    console.info(`crash test: ${trials} kills, ${torn} torn tails, ${grew} trials appended`)
  }, 300_000)

  test('writers in several processes at once keep every batch whole', async () => {
    const dir = `${work.dir}/parallel`
    const tags = ['w1', 'w2', 'w3', 'w4']
    const children = tags.map((tag, n) => start(dir, 'shared', n % 2 === 0, tag))
    const codes = await Promise.all(children.map(exited))
    expect(codes).toEqual([0, 0, 0, 0])
    const { entries, warnings } = await jsonlSessionStore(dir).load('shared')
    expect(warnings).toEqual([])
    expect(entries).toHaveLength(tags.length * 25 * 3)
    for (let at = 0; at < entries.length; at += 3) {
      const ids = entries.slice(at, at + 3).map((e) => e.id)
      const batch = ids[0]?.replace(/-0$/, '')
      expect(ids).toEqual([`${batch}-0`, `${batch}-1`, `${batch}-2`])
    }
    for (const tag of tags) {
      expect(entries.filter((e) => e.id.startsWith(`${tag}-`))).toHaveLength(75)
    }
  }, 120_000)
})
