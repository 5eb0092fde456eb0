import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import Anthropic from '@anthropic-ai/sdk'
import { type Script, startAnthropicEmulator } from '@contextkit/testkit'
import { afterEach, expect, test } from 'vitest'
import { type CodeEditorDeps, main } from './code-editor.js'
import type { EditorPayload } from './code-editor-payload.js'
import { codeEditorScript } from './code-editor-script.js'

const cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

const APP = `export function TaskCard({ task }) {
  return (
    <li className="task-card">
      <h3>{task.title}</h3>
    </li>
  )
}
`
const MODELS = `from sqlmodel import SQLModel


class Task(SQLModel, table=True):
    id: int
    title: str
`

async function project(): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'code-editor-'))
  cleanups.push(() => rm(root, { recursive: true, force: true }))
  const files: Record<string, string> = {
    'src/App.jsx': APP,
    'api/models.py': MODELS,
    'api/routes.py': '@app.post("/tasks")\ndef create_task(task: Task):\n    return task\n',
    '.env': 'SECRET=1\n',
  }
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true })
    await writeFile(join(root, path), text)
  }
  return root
}

const PAYLOAD: EditorPayload = {
  instruction: 'Add a priority field to tasks and show it on the task card',
  pageUrl: 'http://localhost:5173/tasks',
  contexts: [
    {
      tagName: 'li',
      selector: '.task-card',
      sourceFile: 'src/App.jsx',
      sourceLine: 3,
      html: '<li class="task-card"><h3>Buy milk</h3></li>',
    },
  ],
  externalImages: [
    {
      filename: 'ref.png',
      dimensions: '800x600',
      description: 'Cards show a colored priority badge top right',
    },
  ],
  backendMap: {
    models: [{ name: 'Task', file: 'api/models.py', line: 4, fields: ['id', 'title'] }],
    endpoints: [{ method: 'POST', path: '/tasks', file: 'api/routes.py', line: 1 }],
  },
}

async function edit(extra: Partial<CodeEditorDeps> = {}, script: Script = codeEditorScript) {
  const emulator = await startAnthropicEmulator({ script })
  cleanups.push(() => emulator.close())
  const root = extra.root ?? (await project())
  const lines: string[] = []
  const result = await main({
    client: new Anthropic({ apiKey: 'test', baseURL: emulator.url, maxRetries: 0 }),
    root,
    payload: PAYLOAD,
    print: (l) => lines.push(l),
    ...extra,
  })
  const bodies = emulator.requests
    .filter((r) => r.path === '/v1/messages')
    .map((r) => JSON.stringify((r.body as { messages: unknown }).messages))
  return { result, root, lines, bodies }
}

test('files preloaded: plan, one turn of writes, a summary — three model calls, no reads', async () => {
  const { result, root, lines, bodies } = await edit()
  expect(result.steps).toBe(3)
  expect(result.stopReason).toBe('end_turn')
  expect(result.plan).toBe(
    '1. Add the priority field to the model in api/models.py\n2. Show priority in src/App.jsx',
  )
  expect(result.filesChanged).toEqual(['api/models.py', 'src/App.jsx'])
  expect(lines).toEqual([
    'turn 0 (plan): no tool calls',
    'turn 1: write_file api/models.py, write_file src/App.jsx',
    'turn 2: no tool calls',
  ])
  expect(await readFile(join(root, 'api/models.py'), 'utf8')).toBe(
    MODELS.replace('title: str\n', 'title: str\n    priority: str = "normal"'),
  )
  expect(await readFile(join(root, 'src/App.jsx'), 'utf8')).toContain(
    '      <span className="priority">{task.priority}</span>\n    </li>',
  )
  // the prompt: every part kept, the referenced files preloaded; the plan goes first in the user turn
  expect(result.prompt.kept).toEqual([
    'payload:header',
    'payload:elements',
    'payload:images',
    'payload:vision',
    'payload:backend',
    'preload:src/App.jsx',
    'preload:api/routes.py',
    'preload:api/models.py',
    'payload:files-to-modify',
  ])
  expect(result.prompt.text).toContain('<li class=\\"task-card\\">'.replaceAll('\\', ''))
  expect(bodies[1]).toContain('## Your Plan')
  expect(bodies[1]!.indexOf('## Your Plan')).toBeLessThan(bodies[1]!.indexOf('## Instruction'))
})

test('a tight budget drops the preloaded files before the images, and the agent reads them: four calls', async () => {
  const { result } = await edit({ budgetTokens: 160 })
  const dropped = result.prompt.omissions.filter((o) => o.reason === 'dropped').map((o) => o.id)
  expect(dropped).toEqual([
    'payload:vision',
    'preload:api/models.py',
    'preload:api/routes.py',
    'preload:src/App.jsx',
  ])
  expect(result.prompt.kept).toContain('payload:images')
  expect(result.prompt.text).not.toContain('#### `src/App.jsx`')
  expect(result.prompt.text).not.toContain('<li class="task-card">') // HTML went first
  expect(result.steps).toBe(4)
  expect(result.filesChanged).toEqual(['api/models.py', 'src/App.jsx'])
})

test('a vague instruction about several elements: the plan phase asks, the run ends with the question', async () => {
  const payload: EditorPayload = {
    instruction: 'Make it bigger',
    contexts: [
      { tagName: 'h3', selector: '.task-card h3', sourceFile: 'src/App.jsx' },
      { tagName: 'li', selector: '.task-card', sourceFile: 'src/App.jsx' },
    ],
  }
  const { result, root } = await edit({ payload })
  expect(result.stopReason).toBe('clarify')
  expect(result.question).toBe('Which of the 2 selected elements should change?')
  expect(result.context).toBe('"Make it bigger" could mean any of them.')
  expect(result.steps).toBe(1)
  expect(result.filesChanged).toEqual([])
  expect(await readFile(join(root, 'src/App.jsx'), 'utf8')).toBe(APP)
})

test('writes outside the project, to dotfiles or scripts are refused and the model is told', async () => {
  const bad = ['../escape.txt', '.env', 'deploy.sh', '/etc/passwd']
  const script: Script = [
    JSON.stringify({ action: 'proceed', plan: '1. try' }),
    { toolUse: bad.map((path) => ({ name: 'write_file', input: { path, content: 'x' } })) },
    'Could not write those.',
  ]
  const { result, root } = await edit({}, script)
  const errors = result.result.messages
    .flatMap((m) => m.content)
    .flatMap((b) => (b.type === 'tool_result' && b.isError ? [b.content[0]] : []))
    .map((c) => (c?.type === 'text' ? c.text : ''))
  expect(errors).toHaveLength(4)
  expect(errors[0]).toContain('Refused to write "../escape.txt"')
  expect(errors[1]).toContain('Refused to write ".env": it is on the deny list')
  expect(errors[2]).toContain('executable scripts are not edited')
  expect(errors[3]).toContain('Refused to write "/etc/passwd"')
  expect(result.filesChanged).toEqual([])
  expect(await readFile(join(root, '.env'), 'utf8')).toBe('SECRET=1\n')
})

test('approveWrites: a refused write is not made, and the model reads that it was not approved', async () => {
  const asked: string[] = []
  const { result, root, bodies } = await edit({
    approveWrites: ({ path, content }) => {
      asked.push(`${path} ${content.length}`)
      return path !== 'api/models.py'
    },
  })
  expect(asked.map((a) => a.split(' ')[0]).sort()).toEqual(['api/models.py', 'src/App.jsx'])
  expect(result.filesChanged).toEqual(['src/App.jsx'])
  expect(await readFile(join(root, 'api/models.py'), 'utf8')).toBe(MODELS)
  expect(await readFile(join(root, 'src/App.jsx'), 'utf8')).toContain('{task.priority}')
  expect(bodies.at(-1)).toContain('The call to tool \\"write_file\\" was not approved')
})
