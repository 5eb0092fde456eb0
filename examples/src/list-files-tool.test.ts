import { statSync } from 'node:fs'
import { mkdir, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { runToolCalls } from '@contextkit/agent-loop'
import { expect, test } from 'vitest'
import { createDemoWorkspace, DEMO_SOURCE_FILE, DEMO_TEMPLATE_FILES } from './demo-workspace.js'
import { LIST_FILES_TOOL_NAME, listFilesTool } from './list-files-tool.js'

async function list(workspace: string, input: Record<string, unknown>) {
  const tool = listFilesTool(workspace, { maxEntries: 9 })
  const [outcome] = await runToolCalls(
    [{ type: 'tool_call', id: 'toolu_1', name: LIST_FILES_TOOL_NAME, input }],
    {
      tools: new Map([[tool.name, tool]]),
      signal: new AbortController().signal,
      runId: 'test',
      concurrency: 1,
    },
  )
  const block = outcome!.result.content[0]
  return { text: block?.type === 'text' ? block.text : '', isError: outcome!.result.isError }
}

test('list_files lists the workspace with sizes, leaving out secrets, tool state and symlinks', async () => {
  const ws = await createDemoWorkspace()
  try {
    await writeFile(join(ws.dir, '.env'), 'KEY=1\n')
    await mkdir(join(ws.dir, '.contextkit', 'sessions'), { recursive: true })
    await writeFile(join(ws.dir, '.contextkit', 'sessions', 'main.jsonl'), '{}\n')
    await symlink('/etc', join(ws.dir, 'etc-link'))
    const all = await list(ws.dir, {})
    expect(all.isError).toBe(false)
    const files = DEMO_TEMPLATE_FILES
    const sized = (f: string) => `${f} (${statSync(join(ws.dir, f)).size} bytes)`
    expect(all.text.split('\n')).toEqual(files.map(sized))
    expect((await list(ws.dir, { path: 'src/' })).text).toBe(
      [DEMO_SOURCE_FILE, 'src/report.ts'].map(sized).join('\n'),
    )
    for (let i = 0; i < 4; i++) await writeFile(join(ws.dir, `extra-${i}.txt`), 'x')
    expect((await list(ws.dir, {})).text).toContain('… and 2 more files')
    const outside = await list(ws.dir, { path: '../' })
    expect(outside).toMatchObject({ isError: true })
    expect(outside.text).toContain('path_outside_root')
    const link = await list(ws.dir, { path: 'etc-link' })
    expect(link.isError).toBe(true)
    expect(link.text).toContain('path_outside_root')
    expect((await list(ws.dir, { path: 'nope' })).text).toContain('file_not_found')
  } finally {
    await ws.cleanup()
  }
})
