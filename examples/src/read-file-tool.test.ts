import { runToolCalls } from '@contextkit/agent-loop'
import { expect, test } from 'vitest'
import { createDemoWorkspace, DEMO_SOURCE, DEMO_SOURCE_FILE } from './demo-workspace.js'
import { READ_FILE_TOOL_NAME, readFileTool } from './read-file-tool.js'

const call = (input: Record<string, unknown>, name = READ_FILE_TOOL_NAME) => ({
  type: 'tool_call' as const,
  id: 'toolu_1',
  name,
  input,
})

test('read_file reads inside the workspace and refuses the rest as error results', async () => {
  const ws = await createDemoWorkspace()
  try {
    const tool = readFileTool(ws.dir)
    const run = async (c: ReturnType<typeof call>) => {
      const [outcome] = await runToolCalls([c], {
        tools: new Map([[tool.name, tool]]),
        signal: new AbortController().signal,
        runId: 'test',
        concurrency: 1,
      })
      return outcome!.result
    }
    expect(await run(call({ path: DEMO_SOURCE_FILE }))).toEqual({
      type: 'tool_result',
      toolCallId: 'toolu_1',
      content: [{ type: 'text', text: DEMO_SOURCE }],
      isError: false,
    })
    const outside = await run(call({ path: '../../etc/passwd' }))
    expect(outside.isError).toBe(true)
    expect(outside.content[0]).toMatchObject({
      text: expect.stringMatching(/^Tool "read_file" failed: preload_path_outside_root: /),
    })
    const missing = await run(call({ path: 'nope.txt' }))
    expect(missing.content[0]).toMatchObject({
      text: expect.stringMatching(/^Tool "read_file" failed: preload_file_not_found: /),
    })
    const empty = await run(call({}))
    expect(empty.isError).toBe(true)
    expect(empty.content[0]).toMatchObject({
      text: expect.stringMatching(/^Invalid input for tool "read_file": path: /),
    })
    const unknown = await run(call({ path: 'x' }, 'rm_rf'))
    expect(unknown).toMatchObject({
      isError: true,
      content: [{ text: 'Unknown tool "rm_rf". Available tools: read_file.' }],
    })
  } finally {
    await ws.cleanup()
  }
})
