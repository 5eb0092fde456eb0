import { spawn } from 'node:child_process'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { defaultTokenCounter, textMessage } from '@contextkit/core'
import { jsonlSessionStore } from '@contextkit/store-files'
import { build } from 'esbuild'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { tempDir } from '../../../../test-utils/temp-dir.js'
import { SessionRun } from './session-run.js'

let work: Awaited<ReturnType<typeof tempDir>>
let fixture: string
beforeAll(async () => {
  work = await tempDir('header')
  // one plain .mjs, so each of the 40 writers starts as fast as node does
  fixture = join(work.dir, 'header-race.mjs')
  await build({
    entryPoints: [fileURLToPath(new URL('./header-race.fixture.ts', import.meta.url))],
    outfile: fixture,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'silent',
  })
})
afterAll(() => work.cleanup())

const lines = async (file: string) =>
  (await readFile(file, 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { type: string; version?: number })

/** Start a writer; resolves once it has opened the session and waits for "go". */
function writer(dir: string, id: string, tag: string) {
  const child = spawn(process.execPath, [fixture, dir, id, tag], {
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  let out = ''
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      out += String(chunk)
      if (out.includes('ready')) resolve()
    })
    child.once('exit', (code) => reject(new Error(`writer ${tag} exited early (${code})`)))
  })
  return { child, ready, exited, output: () => out }
}

describe('session header', () => {
  test('two processes starting one new session write one header (20 trials)', async () => {
    const trials = 20
    let twoHeaders = 0
    const trial = async (id: string) => {
      const pair = [writer(work.dir, id, 'a'), writer(work.dir, id, 'b')]
      await Promise.all(pair.map((w) => w.ready))
      for (const w of pair) w.child.stdin.end('go\n')
      expect(await Promise.all(pair.map((w) => w.exited))).toEqual([0, 0])
      const entries = await lines(join(work.dir, `${id}.jsonl`))
      if (entries.filter((e) => e.type === 'session').length !== 1) twoHeaders++
      expect(entries[0]?.type).toBe('session')
      // both users' messages are kept, each once
      expect(entries.filter((e) => e.type === 'message')).toHaveLength(2)
    }
    // 4 rounds of 5 sessions at once (each session is raced by its own pair of processes)
    for (let round = 0; round < trials / 5; round++) {
      await Promise.all(Array.from({ length: 5 }, (_, k) => trial(`race-${round}-${k}`)))
    }
    expect(twoHeaders).toBe(0)
  }, 120_000)

  test('a header with version 0 is kept, reported, and never followed by a second one', async () => {
    const store = jsonlSessionStore(work.dir, { fsync: false })
    const file = store.pathOf('v0')
    const bad = { type: 'session', version: 0, id: 'v0', createdAt: new Date(0).toISOString() }
    await writeFile(file, `${JSON.stringify(bad)}\n`)
    const opened = await SessionRun.open(
      { store, id: 'v0' },
      { tokens: 1_000_000, counter: defaultTokenCounter },
    )
    expect(opened.warnings.length).toBeGreaterThan(0)
    await opened.session.append([textMessage('user', 'hi')])
    const entries = await lines(file)
    expect(entries.map((e) => e.type)).toEqual(['session', 'message'])
    expect(entries[0]?.version).toBe(0)
  })
})
