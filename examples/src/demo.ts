import { join, relative } from 'node:path'
import Anthropic from '@anthropic-ai/sdk'
import { describeError, getModelInfo, textOf } from '@contextkit/core'
import { loadSelfState } from '@contextkit/resumption/node'
import { type AnthropicEmulator, startAnthropicEmulator } from '@contextkit/testkit'
import { runDemoCli } from './cli/run-cli.js'
import { DEMO_TURNS, demoScript } from './demo-script.js'
import { createDemoWorkspace, DEMO_CONTEXT_FILE } from './demo-workspace.js'
import { abbreviate, describeHistory, describeRequest, describeTrace } from './describe-turn.js'
import { type EmbeddedTurnResult, runEmbeddedTurn } from './embedded-runner.js'
import { isEntryPoint } from './entry-point.js'
import { loadSessionMessages, runnerSessionStore } from './runner-sessions.js'

/** Dependencies of {@link main}; everything is optional. */
export interface DemoDeps {
  /** Where the account goes, one line per call. Default `console.log`. */
  print?: (line: string) => void
  /** A ready client (e.g. pointed at an emulator). Wins over everything below. */
  client?: Anthropic
  /** Base URL (+ `apiKey`) for a client built here. */
  baseURL?: string
  apiKey?: string
  /** Model id. Default `ANTHROPIC_MODEL`, else `claude-haiku-4-5`. */
  model?: string
  /** Directory for the demo workspace (created and filled). Default: a temp dir, removed after. */
  workspace?: string
  /** Environment read for `ANTHROPIC_API_KEY` / `ANTHROPIC_MODEL`. Default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>
}

/** What {@link main} did. */
export interface DemoResult {
  /** `offline`: the testkit emulator; `claude`: the real API; `client`: the client you gave. */
  mode: 'offline' | 'claude' | 'client'
  model: string
  workspace: string
  sessions: EmbeddedTurnResult[]
}

export { DEMO_TURNS }

async function runSessions(
  client: Anthropic,
  model: string,
  workspace: string,
  print: (line: string) => void,
): Promise<EmbeddedTurnResult[]> {
  const results: EmbeddedTurnResult[] = []
  for (const [i, turn] of DEMO_TURNS.entries()) {
    print('')
    print(`=== Session ${i + 1} (${turn.sessionId}): "${turn.text}"`)
    const result = await runEmbeddedTurn({
      client,
      model,
      workspace,
      userText: turn.text,
      sessionId: turn.sessionId,
      contextFile: DEMO_CONTEXT_FILE,
      maxTokens: 600,
    })
    results.push(result)
    print('--- the turn, step by step (from the trace) ---')
    for (const line of describeTrace(result.trace.events)) print(line)
    print(`--- request 1 as the model received it (abbreviated) ---`)
    const first = result.requests[0]
    if (first) for (const line of describeRequest(first)) print(line)
    print(`--- reply (saved form) ---`)
    print(`  ${abbreviate(textOf(result.reply), 300)}`)
    print(`--- saved history: ${relative(workspace, result.sessionPath)} ---`)
    const { messages } = await loadSessionMessages(runnerSessionStore(workspace), turn.sessionId)
    for (const line of describeHistory(messages)) {
      print(line)
    }
    const statePath = join(workspace, '.contextkit', 'self-state.json')
    const { state } = await loadSelfState(statePath)
    print(
      `--- resumption state: ${relative(workspace, statePath)} (revision ${state?.revision}) ---`,
    )
    print(`  tail: "${abbreviate(state?.streamTail?.raw ?? '', 110)}"`)
  }
  return results
}

function header(print: (line: string) => void, how: string, model: string, workspace: string) {
  const info = getModelInfo(model)
  print(`contextkit demo: the embedded runner, ${how}`)
  print(
    `model: ${model} (prefill ${info.supportsPrefill ? 'supported' : 'not supported'}, ${info.contextWindow.toLocaleString('en-US')}-token context)`,
  )
  print(`workspace: ${workspace}`)
}

async function offline(
  model: string,
  workspace: string,
  print: (line: string) => void,
): Promise<EmbeddedTurnResult[]> {
  let emulator: AnthropicEmulator | undefined
  try {
    emulator = await startAnthropicEmulator({ script: demoScript })
    header(print, `offline against the testkit emulator at ${emulator.url}`, model, workspace)
    const client = new Anthropic({ apiKey: 'offline-demo', baseURL: emulator.url, maxRetries: 0 })
    return await runSessions(client, model, workspace, print)
  } finally {
    await emulator?.close()
  }
}

/**
 * The `pnpm demo` program: two sessions of the embedded runner on a fresh demo workspace — the
 * first reads a file with the tool, the second wakes up with the first one's last words
 * (resumption). Runs against Claude when `ANTHROPIC_API_KEY` is set (falling back to the offline
 * emulator if that fails), against the testkit emulator otherwise, or against the client or
 * base URL you pass. Prints each turn's steps from the trace, the request, and the saved history.
 */
export async function main(deps: DemoDeps = {}): Promise<DemoResult> {
  const print = deps.print ?? console.log
  const env = deps.env ?? process.env
  const model = deps.model ?? env.ANTHROPIC_MODEL ?? 'claude-haiku-4-5'
  const ws = await createDemoWorkspace(deps.workspace)
  try {
    if (deps.client || deps.baseURL) {
      const client =
        deps.client ??
        new Anthropic({ apiKey: deps.apiKey ?? 'offline-demo', baseURL: deps.baseURL })
      header(print, 'with the client you gave', model, ws.dir)
      const sessions = await runSessions(client, model, ws.dir, print)
      return { mode: 'client', model, workspace: ws.dir, sessions }
    }
    const apiKey = env.ANTHROPIC_API_KEY
    if (apiKey) {
      try {
        header(print, 'against Claude (ANTHROPIC_API_KEY is set)', model, ws.dir)
        const sessions = await runSessions(new Anthropic({ apiKey }), model, ws.dir, print)
        return { mode: 'claude', model, workspace: ws.dir, sessions }
      } catch (error) {
        print('')
        print(`Claude could not be reached (${describeError(error)}); running offline instead.`)
        await ws.cleanup()
        await createDemoWorkspace(ws.dir)
      }
    }
    const sessions = await offline(model, ws.dir, print)
    return { mode: 'offline', model, workspace: ws.dir, sessions }
  } finally {
    if (deps.workspace === undefined) await ws.cleanup()
  }
}

if (isEntryPoint(import.meta.url)) {
  // `pnpm demo [flags] "message"`: the command line (see cli/run-cli.ts); Ctrl-C aborts the run
  // (the steps that finished are already in the session)
  const controller = new AbortController()
  // `on`, not `once`: a loader (tsx) may send SIGINT again, which must not kill the process
  // before the run has saved what finished and printed its one line
  process.on('SIGINT', () => controller.abort(new Error('interrupted (Ctrl-C)')))
  process.on('SIGTERM', () => controller.abort(new Error('terminated')))
  runDemoCli(process.argv.slice(2), {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.env.INIT_CWD ?? process.cwd(),
    signal: controller.signal,
    stdin: process.stdin,
  }).then(
    (code) => {
      process.exitCode = code
    },
    (error: unknown) => {
      console.error(`demo: ${describeError(error)}`)
      process.exitCode = 1
    },
  )
}
