import { resolve } from 'node:path'
import type Anthropic from '@anthropic-ai/sdk'
import {
  type AgentResult,
  type AgentStopReason,
  type ModelProvider,
  maxSteps,
  PLAN_SYSTEM_PROMPT,
  type PlanClarification,
  type PlanQuestion,
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
import {
  buildEditorPrompt,
  codeEditorRoot,
  type EditorPayload,
  type EditorPrompt,
} from './code-editor-payload.js'
import { isEntryPoint } from './entry-point.js'

export { codeEditorRoot }

import { readFileTool } from './read-file-tool.js'
import { type WriteFileInput, writeFileTool } from './write-file-tool.js'

/** The editing agent's system prompt: seed 002's rules, efficiency first (its goal: under ten steps). */
export const CODE_EDITOR_SYSTEM_PROMPT = `You are a full-stack code editor. The user selected elements in a running web page and asked for a change. The prompt gives the instruction, the selected elements with their source locations, reference images, the backend's models and routes ("Backend Structure"), the files to modify, and often the files themselves under "### Pre-loaded Files".

Finish in as few steps as you can (under ten):
1. Read everything you need in one turn (several read_file calls at once), then write everything in one turn (several write_file calls at once). Never alternate reads and writes.
2. The files under "Pre-loaded Files" are current: use them as they are; do not read them again.
3. Trust the paths under "Files to Modify" and "Backend Structure"; do not guess or look for others.
4. Every turn makes progress with at least one tool call, until the closing summary. If you have what you need, write now.
5. Read only what the prompt does not already give you.

Scope: looks, layout and components are frontend files (JSX, CSS); data, fields, validation and endpoints are backend files (models, routes); a feature that needs both ("add tags") changes both.

To add a field, in this order:
1. add it to the model class (the SQLModel class in models.py);
2. add it to the create and update schemas, where there are any;
3. update the route handlers that accept or return it;
4. update the frontend components that show it or let the user enter it.

Rules:
- Change only the files named under "Files to Modify" or "Backend Structure"; read other files only for context.
- Make small, targeted changes in the project's own style; do not refactor around them.
- If a file cannot be found or the instruction is unclear, say what you need instead of guessing.
- End with a short summary of what you changed.

Security:
- Never write dotfiles (.env, .bashrc, .gitconfig, …) or executable scripts, and nothing outside the project's source.
- Never modify database.py: change the models and let create_all() update the schema.
- If the user asks for anything outside your role as a code editor, refuse and say why.`

/**
 * The plan call's system prompt in the code editor: agent-loop's `PLAN_SYSTEM_PROMPT` (the JSON
 * answer, a specific numbered plan with an example, when to clarify) and what it means for a
 * selection of page elements.
 */
export const CODE_EDITOR_PLAN_PROMPT = `${PLAN_SYSTEM_PROMPT}

The request comes from a visual editor: the user selected elements in a running page ("Selected Elements"), and the prompt names their source files, the backend's models and routes, and often gives the files under "Pre-loaded Files". So:
- an instruction like "make it bigger" or "change this" with more than one selected element: ask which element;
- "add a feature" with no details: ask what it should do;
- a plan that adds a field goes model, then create/update schemas, then routes, then the components that show it;
- use the pre-loaded files to name the exact components and lines your plan changes.`

/** Files the code editor never writes (seed 002: the schema follows the models, never the reverse). */
export const CODE_EDITOR_PROTECTED_FILES: readonly string[] = Object.freeze(['database.py'])

/** Dependencies and options of {@link main}. */
export interface CodeEditorDeps {
  /** The model. Alternative: `client` (an Anthropic client: the real API or testkit's emulator). */
  provider?: ModelProvider
  client?: Anthropic
  /** Model id. Default `claude-sonnet-4-6`. */
  model?: string
  /** The project the agent edits; every read and write stays inside it. Default: {@link codeEditorRoot} of `process.env`. */
  root?: string
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
   * Answers the plan phase's question (the user's reply): the run goes on with it under
   * `## Additional Context from User`. `undefined` ends the run with the question
   * (`stopReason: 'clarify'`). Default: none.
   */
  answer?: (question: PlanQuestion) => string | undefined | Promise<string | undefined>
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
  /** The plan phase's questions that `answer` answered, in order. */
  clarifications: PlanClarification[]
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
 * with preload's pass ladder; the plan phase plans (or asks a question: `answer` replies and the
 * run goes on, else the run ends with it); then the agent edits with `read_file` (preload's `readWithinRoot`) and `write_file`
 * (`writeWithinRoot`, never `database.py`), both confined to the project root. Reports the turn
 * count.
 */
export async function main(deps: CodeEditorDeps): Promise<CodeEditorResult> {
  const provider =
    deps.provider ??
    (deps.client
      ? anthropicProvider({ client: deps.client })
      : (() => {
          throw new ConfigurationError('code-editor main() needs a `provider` or a `client`')
        })())
  const root = resolve(deps.root ?? codeEditorRoot(process.env))
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
  const clarifications: PlanClarification[] = []
  const answer = deps.answer
  const ask = answer
    ? async (q: PlanQuestion) => {
        const reply = await answer(q)
        if (reply?.trim())
          clarifications.push({ question: q.question, context: q.context, answer: reply })
        return reply
      }
    : undefined
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
        {
          limits: { protect: CODE_EDITOR_PROTECTED_FILES },
          ...(approveWrites
            ? {
                approval: async (write: WriteFileInput) =>
                  (await approveWrites(write)) ? 'allow' : 'deny',
              }
            : {}),
        },
      ),
    ],
    ...(deps.plan === false
      ? {}
      : { plan: { system: CODE_EDITOR_PLAN_PROMPT, ...(ask ? { ask } : {}) } }),
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
    clarifications,
    filesChanged: [...changed].sort(),
    summary: result.text,
    prompt,
    result,
  }
}

if (isEntryPoint(import.meta.url)) {
  // npx tsx examples/src/code-editor.ts --workspace my-app --init --file src/App.jsx "Add a priority field…"
  const { lineAsker, runCodeEditorCli } = await import('./code-editor-cli.js')
  process.exitCode = await runCodeEditorCli(
    process.argv.slice(2),
    {
      log: (line) => console.log(line),
      error: (line) => console.error(line),
      env: process.env,
      cwd: process.env.INIT_CWD ?? process.cwd(),
      ask: lineAsker(process.stdin, process.stdout),
    },
    main,
  )
}
