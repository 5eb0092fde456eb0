import { afterAll, expect, test } from 'vitest'
import { createSandbox, type SandboxOptions, SandboxScriptError } from './context-file-sandbox.js'

const sandboxes: Array<{ dispose(): Promise<void> }> = []
afterAll(async () => {
  for (const s of sandboxes) await s.dispose()
})

async function sandbox(vars: Record<string, unknown>, options: SandboxOptions = {}) {
  const s = await createSandbox(vars, options)
  sandboxes.push(s)
  return s
}

async function stopOf(fn: () => Promise<unknown>): Promise<string> {
  try {
    await fn()
  } catch (error) {
    expect(SandboxScriptError.isInstance(error)).toBe(true)
    return (error as SandboxScriptError).stop
  }
  return 'finished'
}

test('scripts see __vars, print and SUBMIT, keep their globals, and see nothing of the host', async () => {
  const s = await sandbox({ context: 'a\nb\nc', query: 'how many lines?' })
  await s.setVar('contextMeta', { format: 'plain-text', lines: 3 })
  expect(
    await s.run('print(__vars.query); globalThis.n = __vars.context.split("\\n").length; n'),
  ).toEqual({
    output: 'how many lines?\n=> 3',
    submitted: false,
  })
  expect(
    await s.run('print(__vars.contextMeta.format, __vars.contextMeta.lines); SUBMIT({ lines: n })'),
  ).toEqual({
    output: 'plain-text 3',
    submitted: true,
  })
  expect(s.submitted).toEqual({ lines: 3 })
  expect(
    (await s.run(`[typeof process, typeof require, typeof fetch, typeof setTimeout].join()`))
      .output,
  ).toBe('=> undefined,undefined,undefined,undefined')
  // the classic node:vm escape finds no host here
  expect((await s.run(`this.constructor.constructor('return typeof process')()`)).output).toBe(
    '=> undefined',
  )
  expect(await stopOf(() => s.run('null.x'))).toBe('error')
})

test('a runaway loop is stopped at the time limit, a memory bomb at the memory limit; __vars survive', async () => {
  const s = await sandbox(
    { context: 'data' },
    { timeLimitMs: 200, memoryLimitBytes: 16 * 1024 * 1024 },
  )
  await s.run('globalThis.mine = 1')
  expect(await stopOf(() => s.run('while (true) {}'))).toBe('timeout')
  expect((await s.run('[__vars.context, typeof mine].join()')).output).toBe('=> data,undefined')
  // growing in big steps: QuickJS's interrupt rarely gets a look in, so the host ends it
  expect(
    await stopOf(() => s.run('const a = []; while (true) a.push(new Array(1e5).fill(1))')),
  ).toMatch(/timeout|memory/)
  // the memory limit alone stops these: a time limit no loaded machine reaches first
  const m = await sandbox(
    { context: 'data' },
    { timeLimitMs: 60_000, memoryLimitBytes: 16 * 1024 * 1024 },
  )
  expect(await stopOf(() => m.run('new Array(1e8).fill(0).length'))).toBe('memory')
  expect(await stopOf(() => m.run('const f = () => f(); f()'))).toBe('memory')
  expect(await stopOf(() => m.run('let t = "x"; while (true) t += t'))).toBe('error') // "string too long"
  expect((await m.run('print("still here", __vars.context)')).output).toBe('still here data')
})

test('print output is capped', async () => {
  const s = await sandbox({}, { maxOutputChars: 50 })
  const { output } = await s.run('for (let i = 0; i < 100; i++) print("line " + i)')
  expect(output.startsWith('line 0\nline 1\n')).toBe(true)
  expect(output.endsWith('[… output cut at 50 characters]')).toBe(true)
})
