import { resolve } from 'node:path'
import type Anthropic from '@anthropic-ai/sdk'
import {
  type AgentResult,
  type AgentStopReason,
  type ModelProvider,
  maxSteps,
  runAgent,
} from '@contextkit/agent-loop'
import { anthropicProvider } from '@contextkit/agent-loop/anthropic'
import {
  ConfigurationError,
  createTokenCounter,
  getModelInfo,
  type TokenCounter,
  type Trace,
  textMessage,
} from '@contextkit/core'
import { buildEditorPrompt, type EditorPayload, type EditorPrompt } from './code-editor-payload.js'
import { isEntryPoint } from './entry-point.js'
import { readFileTool } from './read-file-tool.js'
import { type WriteFileInput, writeFileTool } from './write-file-tool.js'

/** The editing agent's system prompt: efficiency rules first (seed 002's goal: under ten steps). */
export const CODE_EDITOR_SYSTEM_PROMPT = `You are a full-stack code editor. The user selected elements in a running web page and asked for a change. The prompt gives the instruction, the selected elements with their source locations, reference images, the backend's models and routes, and often the files themselves under "#### \`path\`" headings.

Finish in as few steps as you can (under ten):
1. Read everything you need in one turn (several read_file calls at once), then write everything in one turn (several write_file calls at once). Never alternate reads and writes.
2. Files shown in the prompt are current: use them; do not read them again.
3. Trust the paths under "Files to Modify" and "Backend Structure"; do not look for others.
4. Every turn makes progress with at least one tool call, until the closing summary.
5. Scope: looks and layout → the frontend files; data, fields and validation → the backend model and routes first, then the frontend that shows them.

Make small changes in the project's own style. Never write dotfiles, scripts or anything outside the project. End with a short summary of what you changed.`

/** Dependencies and options of {@link main}. */
export interface CodeEditorDeps {
  /** The model. Alternative: `client` (an Anthropic client: the real API or testkit's emulator). */
  provider?: ModelProvider
  client?: Anthropic
  /** Model id. Default `claude-sonnet-4-6`. */
  model?: string
  /** The project the agent edits; every read and write stays inside it. */
  root: string
  payload: EditorPayload
  /** Token budget of the user prompt (the pass ladder). Default `8000`. */
  budgetTokens?: number
  /** Token budget of the preloaded files. Default `5000`. */
  preloadBudgetTokens?: number
  /** Model calls at most, the plan call included. Default `12`. */
  maxSteps?: number
  /** The plan phase before editing. Default `true`. */
  plan?: boolean
  /**
   * Asked before each write (path and new content): `false` refuses it, and the model reads that
   * the write was not approved. Default: every write goes ahead. (A one-shot run with no session,
   * so it cannot pause for `approval: 'ask'`: the decision is made while the run waits.)
   */
  approveWrites?: (write: WriteFileInput) => boolean | Promise<boolean>
  /** Where the account goes, one line per turn. Default: nowhere. */
  print?: (line: string) => void
  counter?: TokenCounter
  trace?: Trace
  signal?: AbortSignal
}

/** What {@link main} did. */
export interface CodeEditorResult {
  /** Model calls, the plan call included: the number the seed set out to cut. */
  steps: number
  stopReason: AgentStopReason
  /** The plan the plan phase made. */
  plan?: string
  /** With `stopReason: 'clarify'`: the question for the user, and why. */
  question?: string
  context?: string
  /** Files written, each once, sorted (the calls of one turn run in parallel). */
  filesChanged: string[]
  /** The agent's closing text. */
  summary: string
  /** The fitted prompt (what was kept and left out). */
  prompt: EditorPrompt
  result: AgentResult
}

/**
 * The visual code editor's agent (seed 002) on `runAgent`: the payload of selected elements and
 * the backend map become a prompt with the referenced files preloaded under a budget and fitted
 * with preload's pass ladder; the plan phase plans (or asks one question, which ends the
 * run); then the agent edits with `read_file` (preload's `readWithinRoot`) and `write_file`
 * (`writeWithinRoot`), both confined to the project root. Reports the turn count.
 */
export async function main(deps: CodeEditorDeps): Promise<CodeEditorResult> {
  const provider =
    deps.provider ??
    (deps.client
      ? anthropicProvider({ client: deps.client })
      : (() => {
          throw new ConfigurationError('code-editor main() needs a `provider` or a `client`')
        })())
  const root = resolve(deps.root)
  const model = deps.model ?? 'claude-sonnet-4-6'
  const counter = deps.counter ?? createTokenCounter({ model: getModelInfo(model) })
  const prompt = await buildEditorPrompt(deps.payload, {
    root,
    counter,
    ...(deps.budgetTokens === undefined ? {} : { budgetTokens: deps.budgetTokens }),
    ...(deps.preloadBudgetTokens === undefined
      ? {}
      : { preloadBudgetTokens: deps.preloadBudgetTokens }),
  })
  const changed: string[] = []
  const print = deps.print ?? (() => {})
  const approveWrites = deps.approveWrites
  const run = runAgent({
    provider,
    model,
    system: CODE_EDITOR_SYSTEM_PROMPT,
    messages: [textMessage('user', prompt.text)],
    tools: [
      readFileTool(root),
      writeFileTool(
        root,
        (path) => {
          if (!changed.includes(path)) changed.push(path)
        },
        approveWrites
          ? {
              approval: async (write: WriteFileInput) =>
                (await approveWrites(write)) ? 'allow' : 'deny',
            }
          : {},
      ),
    ],
    ...(deps.plan === false ? {} : { plan: true as const }),
    stopWhen: maxSteps(deps.maxSteps ?? 12),
    maxTokens: 8192,
    workspace: root,
    ...(deps.trace ? { trace: deps.trace } : {}),
    ...(deps.signal ? { signal: deps.signal } : {}),
  })
  for await (const event of run.events) {
    if (event.type === 'step-end') {
      const calls = event.message.content.flatMap((b) =>
        b.type === 'tool_call' ? [`${b.name} ${String(b.input.path ?? '')}`.trim()] : [],
      )
      print(
        `turn ${event.step}${event.phase === 'plan' ? ' (plan)' : ''}: ${calls.length > 0 ? calls.join(', ') : 'no tool calls'}`,
      )
    }
  }
  const result = await run.result
  if (result.stopReason === 'error' && result.error) throw result.error
  return {
    steps: result.steps,
    stopReason: result.stopReason,
    ...(result.plan === undefined ? {} : { plan: result.plan }),
    ...(result.question === undefined ? {} : { question: result.question }),
    ...(result.context === undefined ? {} : { context: result.context }),
    filesChanged: [...changed].sort(),
    summary: result.text,
    prompt,
    result,
  }
}

if (isEntryPoint(import.meta.url)) {
  // npx tsx examples/src/code-editor.ts --workspace my-app --init --file src/App.jsx "Add a priority field…"
  const { runCodeEditorCli } = await import('./code-editor-cli.js')
  process.exitCode = await runCodeEditorCli(
    process.argv.slice(2),
    {
      log: (line) => console.log(line),
      error: (line) => console.error(line),
      env: process.env,
      cwd: process.env.INIT_CWD ?? process.cwd(),
    },
    main,
  )
}
