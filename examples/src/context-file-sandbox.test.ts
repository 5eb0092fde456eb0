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
}, 120_000)

test('print output is capped', async () => {
  const s = await sandbox({}, { maxOutputChars: 50 })
  const { output } = await s.run('for (let i = 0; i < 100; i++) print("line " + i)')
  expect(output.startsWith('line 0\nline 1\n')).toBe(true)
  expect(output.endsWith('[… output cut at 50 characters]')).toBe(true)
})

test('llm_query: the script waits for the host answer, off its time limit; failures throw in the script', async () => {
  const asked: Array<[string, string | undefined]> = []
  let release: (() => void) | undefined
  const s = await sandbox(
    { context: 'a\nb\nc' },
    {
      timeLimitMs: 300,
      llmQuery: async (query, context) => {
        asked.push([query, context])
        if (query === 'fail') throw new Error('the model is down')
        // answered only after the script's whole time limit has passed, on an event
        await new Promise<void>((resolve) => {
          release = resolve
          setTimeout(() => release?.(), 600)
        })
        return `answer to ${query} (${context?.length ?? 0} chars) ✓`
      },
    },
  )
  const run = await s.run(
    'const a = llm_query("first?", __vars.context.slice(0, 3)); print(a); SUBMIT(a)',
  )
  expect(run.output).toBe('answer to first? (3 chars) ✓')
  expect(s.submitted).toBe('answer to first? (3 chars) ✓')
  expect(asked).toEqual([['first?', 'a\nb']])
  const failed = await s.run('try { llm_query("fail") } catch (e) { print(e.message) }')
  expect(failed.output).toBe('llm_query failed: the model is down')
  const bad = await s.run('try { llm_query(42) } catch (e) { print(e.message) }')
  expect(bad.output).toBe('llm_query(query, context?): query must be a non-empty string')
  // without a host answerer it is a clear error, not a hang
  const bare = await sandbox({ context: '' })
  expect((await bare.run('try { llm_query("q?") } catch (e) { print(e.message) }')).output).toBe(
    'llm_query failed: llm_query is not available in this sandbox',
  )
}, 120_000)
