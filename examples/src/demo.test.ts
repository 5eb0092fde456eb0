import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, expect, test } from 'vitest'
import { main } from './demo.js'
import { DEMO_PREFILL } from './demo-workspace.js'

const dirs: string[] = []
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })))
})

test('the demo runs offline by default: two sessions, every step, the request and the history', async () => {
  const lines: string[] = []
  const result = await main({ print: (line) => lines.push(line), env: {} })
  const out = lines.join('\n')
  expect(result.mode).toBe('offline')
  expect(result.sessions).toHaveLength(2)
  expect(out).toContain('offline against the testkit emulator at http://127.0.0.1:')
  expect(out).toContain('=== Session 1 (session-1)')
  expect(out).toContain('=== Session 2 (session-2)')
  for (const step of [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]) {
    expect(lines.some((l) => l.startsWith(`${String(step).padStart(3)}  `))).toBe(true)
  }
  // the step list: every field read exists in the trace (no `undefined`), and the numbers run
  // in turn-table order before the first model call and within each call
  const stepLists = out.split('--- the turn, step by step (from the trace) ---').slice(1)
  expect(stepLists).toHaveLength(2)
  for (const list of stepLists) {
    const listed = list
      .split('\n--- request 1')[0]!
      .split('\n')
      .filter((l) => l.length > 0)
    expect(listed.join('\n')).not.toContain('undefined')
    const groups = listed.join('\n').split(/^ {2}(?:before the first model call|model call \d+)$/m)
    expect(groups[0]!.trim()).toBe('')
    const numbers = groups
      .slice(1)
      .map((g) => [...g.matchAll(/^ *(\d+) {2}/gm)].map((m) => Number(m[1])))
    for (const group of numbers) expect(group).toEqual([...group].sort((x, y) => x - y))
    expect(numbers[0]?.[0]).toBe(1)
  }
  expect(stepLists[0]).toMatch(/^ {2}model call 2$/m)
  expect(stepLists[0]).toMatch(/fit to the budget\.+ \d+ of [\d,]+ tokens/)
  expect(out).toContain('read_file {"path":"src/parse-orders.ts"}')
  expect(out).toContain('resumption block injected after the stable sections')
  expect(out).toContain('system[1]: ')
  expect(out).toContain('Picking up where I stopped')
  expect(out).toContain('--- resumption state: .contextkit/self-state.json (revision 2) ---')
  // the prefill is shown being injected, never in the saved history
  expect(out).toContain(`native: "${DEMO_PREFILL}"`)
  const histories = out.split('--- saved history').slice(1)
  expect(histories).toHaveLength(2)
  for (const h of histories) expect(h.split('===')[0]).not.toContain(DEMO_PREFILL)
})

test('the demo uses the workspace and base URL it is given, and leaves the workspace in place', async () => {
  const { startAnthropicEmulator } = await import('@contextkit/testkit')
  const { demoScript } = await import('./demo-script.js')
  const emulator = await startAnthropicEmulator({ script: demoScript })
  try {
    const dir = await mkdtemp(join(tmpdir(), 'demo-test-'))
    dirs.push(dir)
    const result = await main({ print: () => {}, baseURL: emulator.url, workspace: dir, env: {} })
    expect(result.mode).toBe('client')
    expect(result.workspace).toBe(dir)
    expect(emulator.requests.filter((r) => r.path === '/v1/messages')).toHaveLength(3)
    expect(result.sessions[0]?.sessionPath.startsWith(dir)).toBe(true)
  } finally {
    await emulator.close()
  }
})
