import { existsSync, statSync } from 'node:fs'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { dirname, join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import type { CodeEditorDeps, CodeEditorResult } from './code-editor.js'
import type { EditorPayload } from './code-editor-payload.js'

/** Where the code-editor command writes. */
export interface CodeEditorIO {
  log: (line: string) => void
  error: (line: string) => void
  env: Readonly<Record<string, string | undefined>>
  /** Directory relative paths are resolved against. */
  cwd: string
}

/** The small full-stack project `--init` creates: a React card and a SQLModel model with its route. */
export const DEMO_PROJECT: Readonly<Record<string, string>> = {
  'src/App.jsx': `export function TaskCard({ task }) {
  return (
    <li className="task-card">
      <h3>{task.title}</h3>
    </li>
  )
}
`,
  'api/models.py': `from sqlmodel import SQLModel


class Task(SQLModel, table=True):
    id: int
    title: str
`,
  'api/routes.py': '@app.post("/tasks")\ndef create_task(task: Task):\n    return task\n',
}

const USAGE =
  'usage: code-editor.ts --workspace DIR [--init] [--file PATH]… [--payload FILE] [--model ID] "instruction"'

function fail(io: CodeEditorIO, message: string): number {
  io.error(`code-editor: ${message}`)
  return 2
}

/**
 * The visual code editor's agent as a command: the instruction as the message, `--file` for the
 * files the selected elements come from (or a whole `--payload` JSON as the editor sends it), the
 * project in `--workspace` (`--init` creates a small demo project there). Offline (no
 * `ANTHROPIC_API_KEY`) a scripted model edits through the testkit emulator. Prints a line per
 * model call, the plan, the files written and the summary; returns 0, 1 when the run failed or
 * ended with a question, 2 for bad input (one line).
 */
export async function runCodeEditorCli(
  argv: readonly string[],
  io: CodeEditorIO,
  main: (deps: CodeEditorDeps) => Promise<CodeEditorResult>,
): Promise<number> {
  let values: Record<string, string | boolean | string[] | undefined>
  let positionals: string[]
  try {
    ;({ values, positionals } = parseArgs({
      args: [...argv],
      options: {
        workspace: { type: 'string' },
        init: { type: 'boolean' },
        file: { type: 'string', multiple: true },
        payload: { type: 'string' },
        model: { type: 'string' },
      },
      allowPositionals: true,
    }))
  } catch (error) {
    return fail(io, (error as Error).message.split('\n')[0] ?? 'bad arguments')
  }
  const instruction = positionals.join(' ').trim()
  if (
    typeof values.workspace !== 'string' ||
    (instruction === '' && values.payload === undefined)
  ) {
    io.error(USAGE)
    return 2
  }
  const root = resolve(io.cwd, values.workspace)
  if (!existsSync(root)) {
    if (!values.init)
      return fail(
        io,
        `--workspace ${root}: no such directory; pass --init to create a demo project there`,
      )
    for (const [path, text] of Object.entries(DEMO_PROJECT)) {
      await mkdir(dirname(join(root, path)), { recursive: true })
      await writeFile(join(root, path), text)
    }
    io.log(`created a demo project in ${root}`)
  } else if (!statSync(root).isDirectory()) return fail(io, `--workspace ${root}: not a directory`)
  let payload: EditorPayload
  if (typeof values.payload === 'string') {
    try {
      payload = JSON.parse(await readFile(resolve(io.cwd, values.payload), 'utf8')) as EditorPayload
    } catch (error) {
      return fail(io, `--payload ${values.payload}: ${(error as Error).message}`)
    }
    if (instruction !== '') payload = { ...payload, instruction }
  } else {
    const files = (values.file as string[] | undefined) ?? Object.keys(DEMO_PROJECT).slice(0, 1)
    for (const f of files) {
      if (!existsSync(join(root, f))) return fail(io, `--file ${f}: no such file in ${root}`)
    }
    payload = {
      instruction,
      contexts: files.map((f) => ({
        tagName: 'div',
        selector: f,
        sourceFile: f,
        sourceLine: 1,
        html: '',
      })),
      ...(existsSync(join(root, 'api', 'models.py'))
        ? {
            backendMap: {
              models: [{ name: 'Task', file: 'api/models.py' }],
              endpoints: existsSync(join(root, 'api', 'routes.py'))
                ? [{ method: 'POST', path: '/tasks', file: 'api/routes.py' }]
                : [],
            },
          }
        : {}),
    }
  }
  const { default: AnthropicClient } = await import('@anthropic-ai/sdk')
  const { startAnthropicEmulator } = await import('@contextkit/testkit')
  const { codeEditorScript } = await import('./code-editor-script.js')
  const key = io.env.ANTHROPIC_API_KEY
  const emulator = key ? undefined : await startAnthropicEmulator({ script: codeEditorScript })
  if (emulator)
    io.log(`offline: a scripted model edits through the testkit emulator at ${emulator.url}`)
  try {
    const result = await main({
      client: new AnthropicClient(
        emulator ? { apiKey: 'offline', baseURL: emulator.url, maxRetries: 0 } : { apiKey: key },
      ),
      root,
      payload,
      ...(typeof values.model === 'string' ? { model: values.model } : {}),
      print: io.log,
    })
    if (result.plan) io.log(`plan:\n${result.plan}`)
    if (result.stopReason === 'clarify') {
      io.error(`code-editor: the agent asks: ${result.question ?? '(no question)'}`)
      return 1
    }
    io.log(`files changed: ${result.filesChanged.join(', ') || 'none'}`)
    io.log(`summary: ${result.summary}`)
    io.log(`${result.steps} model calls · stopped ${result.stopReason}`)
    return 0
  } catch (error) {
    io.error(`code-editor: the run failed: ${(error as Error).message}`)
    return 1
  } finally {
    await emulator?.close()
  }
}
