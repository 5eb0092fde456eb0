import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import Anthropic from '@anthropic-ai/sdk'
import { PLAN_SYSTEM_PROMPT } from '@contextkit/agent-loop'
import { type Script, startAnthropicEmulator } from '@contextkit/testkit'
import { afterEach, describe, expect, test } from 'vitest'
import {
  CODE_EDITOR_PLAN_PROMPT,
  CODE_EDITOR_SYSTEM_PROMPT,
  type CodeEditorDeps,
  codeEditorRoot,
  main,
} from './code-editor.js'
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

test('an answer to the plan phase question continues the run: the reply goes in as "## Additional Context from User"', async () => {
  const payload: EditorPayload = {
    instruction: 'Add a due field to it',
    contexts: [
      { tagName: 'h3', selector: '.task-card h3', sourceFile: 'src/App.jsx' },
      { tagName: 'li', selector: '.task-card', sourceFile: 'api/routes.py' },
    ],
  }
  const asked: string[] = []
  const { result, root, bodies, lines } = await edit({
    payload,
    answer: ({ question }) => {
      asked.push(question)
      return 'The card in src/App.jsx'
    },
  })
  expect(asked).toEqual(['Which of the 2 selected elements should change?'])
  expect(result.stopReason).toBe('end_turn')
  expect(result.clarifications).toEqual([
    {
      question: 'Which of the 2 selected elements should change?',
      context: '"Add a due field to it" could mean any of them.',
      answer: 'The card in src/App.jsx',
    },
  ])
  expect(lines).toEqual([
    'turn 0 (plan): no tool calls',
    'turn 0 (plan): no tool calls',
    'turn 1: write_file src/App.jsx',
    'turn 2: no tool calls',
  ])
  expect(result.steps).toBe(4)
  expect(result.filesChanged).toEqual(['src/App.jsx'])
  expect(await readFile(join(root, 'src/App.jsx'), 'utf8')).toContain('{task.due}')
  // the second plan call and every agent call carry the answer, after the plan
  for (const body of bodies.slice(1)) {
    expect(body).toContain(
      '## Additional Context from User\\n\\nYou asked: Which of the 2 selected elements should change?\\nThe user answered: The card in src/App.jsx',
    )
  }
  expect(bodies[2]!.indexOf('## Your Plan')).toBeLessThan(
    bodies[2]!.indexOf('## Additional Context from User'),
  )
})

test('no answer: the run still ends with the question', async () => {
  const payload: EditorPayload = {
    instruction: 'Make it bigger',
    contexts: [
      { tagName: 'h3', selector: '.task-card h3', sourceFile: 'src/App.jsx' },
      { tagName: 'li', selector: '.task-card', sourceFile: 'src/App.jsx' },
    ],
  }
  const { result } = await edit({ payload, answer: () => undefined })
  expect(result.stopReason).toBe('clarify')
  expect(result.clarifications).toEqual([])
})

test('the preloaded files reach the model under "### Pre-loaded Files", the heading the system prompt names', async () => {
  const { bodies } = await edit()
  expect(bodies[1]).toContain('### Pre-loaded Files\\n\\n#### `src/App.jsx` (7 lines)')
  expect(bodies[1]!.split('### Pre-loaded Files')).toHaveLength(2)
  expect(CODE_EDITOR_SYSTEM_PROMPT).toContain('"### Pre-loaded Files"')
})

test('a write to database.py is refused (the schema follows the models), anywhere in the project', async () => {
  const script: Script = [
    JSON.stringify({ action: 'proceed', plan: '1. add the column' }),
    {
      toolUse: ['database.py', 'api/database.py'].map((path) => ({
        name: 'write_file',
        input: { path, content: 'DROP TABLE task' },
      })),
    },
    'Could not.',
  ]
  const root = await project()
  await writeFile(join(root, 'api', 'database.py'), 'engine = create_engine(URL)\n')
  const { result } = await edit({ root }, script)
  const errors = result.result.messages
    .flatMap((m) => m.content)
    .flatMap((b) => (b.type === 'tool_result' && b.isError ? [b.content[0]] : []))
    .map((c) => (c?.type === 'text' ? c.text : ''))
  expect(errors).toHaveLength(2)
  for (const e of errors) expect(e).toContain('the project protects it (database.py)')
  expect(result.filesChanged).toEqual([])
  expect(await readFile(join(root, 'api', 'database.py'), 'utf8')).toBe(
    'engine = create_engine(URL)\n',
  )
})

describe("the system prompts carry seed 002's rules", () => {
  test.each([
    [
      'reads in one turn, writes in one turn',
      /Read everything you need in one turn.*write everything in one turn/,
    ],
    [
      'pre-loaded files are used, not read again',
      /"Pre-loaded Files" are current: use them as they are; do not read them again/,
    ],
    ['trust the prompt paths', /Trust the paths under "Files to Modify" and "Backend Structure"/],
    ['every turn makes progress', /Every turn makes progress with at least one tool call/],
    ['scope: frontend vs backend vs both', /Scope: looks, layout.*frontend.*backend.*changes both/],
    [
      'the new-field procedure, in order',
      /To add a field, in this order:\n1\. add it to the model class.*\n2\. add it to the create and update schemas.*\n3\. update the route handlers.*\n4\. update the frontend components/,
    ],
    [
      'only the files mentioned',
      /Change only the files named under "Files to Modify" or "Backend Structure"/,
    ],
    ['never dotfiles or scripts', /Never write dotfiles .* or executable scripts/],
    [
      'never modify database.py',
      /Never modify database\.py: change the models and let create_all\(\) update the schema/,
    ],
    ['refuse out-of-role requests', /outside your role as a code editor, refuse/],
  ])('code editor: %s', (_rule, pattern) => {
    expect(CODE_EDITOR_SYSTEM_PROMPT).toMatch(pattern)
  })

  test.each([
    [
      'starts as the plan phase prompt (JSON answer, example plan, when to clarify)',
      (p: string) => p.startsWith(PLAN_SYSTEM_PROMPT),
    ],
    ['the example plan', (p: string) => p.includes('An example of a good one:')],
    [
      'clarify which element for a vague instruction over several',
      (p: string) => /more than one selected element: ask which element/.test(p),
    ],
    [
      'clarify a feature with no details',
      (p: string) => p.includes('"add a feature" with no details: ask what it should do'),
    ],
    [
      'a field plan goes model → schemas → routes → components',
      (p: string) =>
        p.includes('model, then create/update schemas, then routes, then the components'),
    ],
    [
      'pre-loaded files make the plan specific',
      (p: string) => p.includes('use the pre-loaded files to name the exact components'),
    ],
  ])('plan: %s', (_rule, holds) => {
    expect(holds(CODE_EDITOR_PLAN_PROMPT)).toBe(true)
  })

  test('the plan call is sent the code-editor plan prompt', async () => {
    const emulator = await startAnthropicEmulator({ script: codeEditorScript })
    cleanups.push(() => emulator.close())
    await main({
      client: new Anthropic({ apiKey: 'test', baseURL: emulator.url, maxRetries: 0 }),
      root: await project(),
      payload: PAYLOAD,
    })
    const first = emulator.requests.find((r) => r.path === '/v1/messages')?.body as {
      system: Array<{ text: string }>
    }
    expect(first.system[0]?.text).toBe(CODE_EDITOR_PLAN_PROMPT)
  })
})

test("VCI_OUTPUT_DIR is the code editor's root when set; /output otherwise", () => {
  expect(codeEditorRoot({ VCI_OUTPUT_DIR: '/srv/app' })).toBe('/srv/app')
  expect(codeEditorRoot({})).toBe('/output')
  expect(codeEditorRoot({ VCI_OUTPUT_DIR: '  ' })).toBe('/output')
})
