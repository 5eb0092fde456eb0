import { afterEach, describe, expect, test, vi } from 'vitest'
import { z } from 'zod'
import { DEFAULT_TOOL_TIMEOUT_MS, defineTool } from './define-tool.js'
import { ToolTimeoutError } from './errors.js'
import { runToolCalls } from './run-tools.js'

const never = (timeoutMs?: number) =>
  defineTool({
    name: 'hang',
    description: 'Never settles',
    input: z.object({}),
    execute: () => new Promise<string>(() => {}),
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
  })

const call = { type: 'tool_call' as const, id: 'c1', name: 'hang', input: {} }

function run(tool: ReturnType<typeof never>) {
  return runToolCalls([call], {
    tools: new Map([['hang', tool]]),
    signal: new AbortController().signal,
    runId: 'r',
    concurrency: 1,
  })
}

describe('a tool that never settles cannot hang the run', () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  test('the default limit is 10 minutes: then the call is an error result', async () => {
    expect(DEFAULT_TOOL_TIMEOUT_MS).toBe(600_000)
    vi.useFakeTimers()
    const pending = run(never())
    await vi.advanceTimersByTimeAsync(DEFAULT_TOOL_TIMEOUT_MS - 1)
    let settled = false
    void pending.then(() => {
      settled = true
    })
    await vi.advanceTimersByTimeAsync(0)
    expect(settled).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    const [outcome] = await pending
    expect(outcome?.result.isError).toBe(true)
    expect(ToolTimeoutError.isInstance(outcome?.error)).toBe(true)
    expect(outcome?.error?.details).toMatchObject({ timeoutMs: DEFAULT_TOOL_TIMEOUT_MS })
  })

  test('timeoutMs: Infinity turns the limit off (the call still ends on abort)', async () => {
    vi.useFakeTimers()
    const controller = new AbortController()
    const pending = runToolCalls([call], {
      tools: new Map([['hang', never(Number.POSITIVE_INFINITY)]]),
      signal: controller.signal,
      runId: 'r',
      concurrency: 1,
    })
    let settled = false
    void pending.then(() => {
      settled = true
    })
    await vi.advanceTimersByTimeAsync(DEFAULT_TOOL_TIMEOUT_MS * 10)
    expect(settled).toBe(false)
    controller.abort()
    const [outcome] = await pending
    expect(outcome?.result.isError).toBe(true)
  })

  test('an explicit limit wins over the default', async () => {
    vi.useFakeTimers()
    const pending = run(never(50))
    await vi.advanceTimersByTimeAsync(50)
    const [outcome] = await pending
    expect(outcome?.error?.details).toMatchObject({ timeoutMs: 50 })
  })
})
