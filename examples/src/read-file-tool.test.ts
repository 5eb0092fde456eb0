import { expect, test } from 'vitest'
import { createDemoWorkspace, DEMO_SOURCE, DEMO_SOURCE_FILE } from './demo-workspace.js'
import { runTool } from './read-file-tool.js'

const call = (input: Record<string, unknown>, name = 'read_file') => ({
  type: 'tool_call' as const,
  id: 'toolu_1',
  name,
  input,
})

test('read_file reads inside the workspace and refuses the rest as error results', async () => {
  const ws = await createDemoWorkspace()
  try {
    const ok = await runTool(ws.dir, call({ path: DEMO_SOURCE_FILE }))
    expect(ok).toEqual({
      type: 'tool_result',
      toolCallId: 'toolu_1',
      content: [{ type: 'text', text: DEMO_SOURCE }],
      isError: false,
    })
    const outside = await runTool(ws.dir, call({ path: '../../etc/passwd' }))
    expect(outside.isError).toBe(true)
    expect(outside.content[0]).toMatchObject({
      text: expect.stringMatching(/^path_outside_root: /),
    })
    const missing = await runTool(ws.dir, call({ path: 'nope.txt' }))
    expect(missing.content[0]).toMatchObject({ text: expect.stringMatching(/^file_not_found: /) })
    expect((await runTool(ws.dir, call({}))).isError).toBe(true)
    expect((await runTool(ws.dir, call({ path: 'x' }, 'rm_rf'))).isError).toBe(true)
  } finally {
    await ws.cleanup()
  }
})
