import { existsSync, statSync } from 'node:fs'
import { mkdir, readFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { createInterface, type Interface } from 'node:readline'
import { parseArgs } from 'node:util'
import type { PlanQuestion } from '@contextkit/agent-loop'
import { replaceWithinRoot } from '@contextkit/core/node'
import type { CodeEditorDeps, CodeEditorResult } from './code-editor.js'
import { codeEditorRoot, type EditorPayload } from './code-editor-payload.js'

/** Where the code-editor command writes. */
export interface CodeEditorIO {
  log: (line: string) => void
  error: (line: string) => void
  env: Readonly<Record<string, string | undefined>>
  /** Directory relative paths are resolved against. */
  cwd: string
  /**
   * Asks the person at the terminal and returns their reply (`undefined`: no reply, e.g. stdin
   * closed). Default: nobody to ask.
   */
  ask?: (prompt: string) => Promise<string | undefined>
}

/**
 * An {@link CodeEditorIO.ask} over a stream (the command's stdin): one line per question,
 * `undefined` once the stream has ended.
 */
export function lineAsker(
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
): (prompt: string) => Promise<string | undefined> {
  let rl: Interface | undefined
  let ended = false
  const waiting: Array<(line: string | undefined) => void> = []
  const lines: string[] = []
  const open = (): Interface => {
    if (rl) return rl
    rl = createInterface({ input, terminal: false })
    rl.on('line', (line) => {
      const next = waiting.shift()
      if (next) next(line)
      else lines.push(line)
    })
    rl.on('close', () => {
      ended = true
      for (const next of waiting.splice(0)) next(undefined)
    })
    return rl
  }
  return (prompt) => {
    open()
    // a prompt only for a person at a terminal: piped answers leave the output as it is
    if ((input as { isTTY?: boolean }).isTTY) output.write(prompt)
    const line = lines.shift()
    if (line !== undefined) return Promise.resolve(line)
    if (ended) return Promise.resolve(undefined)
    return new Promise((resolvePromise) => waiting.push(resolvePromise)).finally(() => {
      // nothing more is asked until the next question: let the process end
      if (waiting.length === 0) input.pause()
    }) as Promise<string | undefined>
  }
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
  'usage: code-editor.ts [--workspace DIR] [--init] [--file PATH]… [--payload FILE] [--model ID] [--answer TEXT]… "instruction"'

function fail(io: CodeEditorIO, message: string): number {
  io.error(`code-editor: ${message}`)
  return 2
}

/**
 * The replies to the plan phase's questions: the `--answer` values in order, then the person at
 * the terminal ({@link CodeEditorIO.ask}). Each question and reply is printed.
 */
function answerer(
  io: CodeEditorIO,
  given: readonly string[],
): (q: PlanQuestion) => Promise<string | undefined> {
  const queue = [...given]
  return async (q) => {
    // the plan call's own line ("turn 0 (plan)") is printed by the event reader, in microtasks
    // still queued: let them run so the question comes after it
    await new Promise((next) => setImmediate(next))
    io.log(`the agent asks: ${q.question}${q.context ? ` (${q.context})` : ''}`)
    const reply = queue.length > 0 ? queue.shift() : await io.ask?.('your answer: ')
    if (reply?.trim()) io.log(`answer: ${reply.trim()}`)
    return reply
  }
}

/**
 * The visual code editor's agent as a command: the instruction as the message, `--file` for the
 * files the selected elements come from (or a whole `--payload` JSON as the editor sends it), the
 * project in `--workspace`, else `VCI_OUTPUT_DIR`, else `/output` (`--init` creates a small demo
 * project there). When the plan phase asks, the reply is the next `--answer`, else a line read
 * from the person at the terminal, and the run goes on with it. Offline (no
 * `ANTHROPIC_API_KEY`) a scripted model edits through the testkit emulator. Prints a line per
 * model call, the plan, the files written and the summary; returns 0, 1 when the run failed or
 * ended with an unanswered question, 2 for bad input (one line).
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
        answer: { type: 'string', multiple: true },
      },
      allowPositionals: true,
    }))
  } catch (error) {
    return fail(io, (error as Error).message.split('\n')[0] ?? 'bad arguments')
  }
  const instruction = positionals.join(' ').trim()
  if (instruction === '' && values.payload === undefined) {
    io.error(USAGE)
    return 2
  }
  const [where, root] =
    typeof values.workspace === 'string'
      ? ['--workspace', resolve(io.cwd, values.workspace)]
      : ['VCI_OUTPUT_DIR', resolve(io.cwd, codeEditorRoot(io.env))]
  if (!existsSync(root)) {
    if (!values.init)
      return fail(
        io,
        `${where} ${root}: no such directory; pass --init to create a demo project there${where === '--workspace' ? '' : ', or --workspace DIR'}`,
      )
    try {
      await mkdir(root, { recursive: true })
    } catch (error) {
      return fail(io, `${where} ${root}: ${(error as Error).message}`)
    }
    for (const [path, text] of Object.entries(DEMO_PROJECT)) {
      await replaceWithinRoot(root, path, text, { fsync: false })
    }
    io.log(`created a demo project in ${root}`)
  } else if (!statSync(root).isDirectory()) return fail(io, `${where} ${root}: not a directory`)
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
      answer: answerer(io, (values.answer as string[] | undefined) ?? []),
      print: io.log,
    })
    if (result.plan) io.log(`plan:\n${result.plan}`)
    if (result.stopReason === 'clarify') {
      io.error(
        `code-editor: the agent asks: ${result.question ?? '(no question)'} (answer with --answer TEXT, or on stdin)`,
      )
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
