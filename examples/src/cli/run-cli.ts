import { existsSync, statSync } from 'node:fs'
import { mkdtemp, readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, relative, resolve } from 'node:path'
import Anthropic from '@anthropic-ai/sdk'
import type { ModelProvider } from '@contextkit/agent-loop'
import { assertSessionId, createTokenCounter, describeError, getModelInfo } from '@contextkit/core'
import { type AnthropicEmulator, startAnthropicEmulator } from '@contextkit/testkit'
import { ContextFileRefusedError, readContextFile } from '../context-file-reader.js'
import { DEMO_TURNS } from '../demo-script.js'
import { DEMO_CONTEXT_FILE } from '../demo-workspace.js'
import { describeTrace } from '../describe-turn.js'
import {
  type EmbeddedTurnResult,
  type FormatterChoice,
  runEmbeddedTurn,
} from '../embedded-runner.js'
import { loadRunnerConfig, type RunnerConfig } from '../runner-config.js'
import { teeTrace } from '../tee-trace.js'
import { approvalsOf, decisionText, showPending } from './approval-output.js'
import { DEMO_USAGE, type DemoArgs, type DemoDecision, parseDemoArgs } from './args.js'
import { BudgetChartCollector } from './budget-collector.js'
import { checkModelId, checkServedModel, probeBaseUrl } from './checks.js'
import { demoResume, type TurnSettings } from './demo-resume.js'
import { DemoUsageError, USAGE_EXIT_CODE } from './errors.js'
import { inspectRuns, untilStopped } from './inspect.js'
import { JsonOutput } from './json-output.js'
import { LiveOutput } from './live-output.js'
import { localServerProvider } from './local-provider.js'
import { mentionedPaths, OFFLINE_ANSWER_MARK, offlineScenario } from './offline-scenario.js'
import { type DemoStores, openStores } from './stores.js'
import { createTerminal, duration, num, type OutputStream, type Terminal } from './terminal.js'
import { prepareWorkspace } from './workspace.js'

/** Where the CLI reads and writes; `process` in the real command, collectors in tests. */
export interface CliIO {
  stdout: OutputStream
  stderr: OutputStream
  env: Readonly<Record<string, string | undefined>>
  /** Directory relative paths (`--workspace`, `pglite:<dir>`) are resolved against. */
  cwd: string
  /** Aborts the run (Ctrl-C): the loop finalizes and saves what finished. */
  signal?: AbortSignal
  /** Where `--message-file -` reads the message. Default: none (then `-` is an error). */
  stdin?: AsyncIterable<string | Uint8Array>
}

/** The exit code of a run stopped by Ctrl-C (128 + SIGINT), as shells report it. */
export const INTERRUPTED_EXIT_CODE = 130

/** Longest message echoed whole on the `you ›` line; a longer one shows its first line and size. */
const ECHO_LIMIT = 200

/** The command the user ran the demo with, for the hints (`npx --yes pnpm@… demo` or `pnpm demo`). */
export function demoCommand(env: Readonly<Record<string, string | undefined>>): string {
  const execpath = env.npm_execpath ?? ''
  const version =
    /pnpm@(\d+\.\d+\.\d+)/.exec(env.npm_config_user_agent ?? '')?.[1] ??
    /pnpm\/(\d+\.\d+\.\d+)/.exec(env.npm_config_user_agent ?? '')?.[1]
  if (execpath.includes('_npx')) return `npx --yes pnpm@${version ?? '10.34.9'} demo`
  return 'pnpm demo'
}

/** The message as the `you ›` line shows it: whole when short, else its first line and its size. */
export function echoOf(message: string): string {
  if (message.length <= ECHO_LIMIT && !message.includes('\n')) return message
  const first = message.split('\n', 1)[0] ?? ''
  const lines = message.split('\n').length
  const head = first.length > 120 ? `${first.slice(0, 120)}…` : first
  return `${head} … (${num(message.length)} characters, ${num(lines)} line${lines === 1 ? '' : 's'})`
}

async function readMessage(file: string, io: CliIO): Promise<string> {
  let text: string
  if (file === '-') {
    if (!io.stdin) throw new DemoUsageError('message', 'no standard input to read the message from')
    let all = ''
    const decoder = new TextDecoder()
    for await (const chunk of io.stdin)
      all += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true })
    text = all + decoder.decode()
  } else {
    const path = resolve(io.cwd, file)
    text = await readFile(path, 'utf8').catch((error: unknown) => {
      const code = (error as { code?: unknown }).code
      throw new DemoUsageError(
        'message',
        `--message-file ${file}: ${code === 'ENOENT' ? 'no such file' : String(code ?? error)}`,
      )
    })
  }
  if (text.trim() === '') {
    throw new DemoUsageError(
      'message',
      `the message ${file === '-' ? 'on standard input' : `in ${file}`} is empty`,
    )
  }
  return text.trim()
}

/** Default model when neither `--model` nor `ANTHROPIC_MODEL` names one. */
export const DEFAULT_DEMO_MODEL = 'claude-haiku-4-5'

/** Default workspace of a message run: kept between runs, so a second run resumes the first. */
export const DEFAULT_DEMO_WORKSPACE = join(tmpdir(), 'contextkit-demo')

type Mode = 'offline' | 'claude' | 'local'

export interface Backend {
  mode: Mode
  model: string
  /** The first line of the output. */
  headline: string
  client?: Anthropic
  provider?: ModelProvider
  formatter?: FormatterChoice
  close(): Promise<void>
}

export interface Output {
  term: Terminal
  json?: JsonOutput
}

/** A new session id per run: `chat-2026-03-01T09-00-00-000` (milliseconds included). */
export function newSessionId(now: Date = new Date()): string {
  return `chat-${now.toISOString().slice(0, 23).replace(/[:.]/g, '-')}`
}

export async function backendFor(args: DemoArgs, io: CliIO): Promise<Backend> {
  if (args.baseUrl !== undefined) {
    const probe = await probeBaseUrl(args.baseUrl)
    const model = args.model ?? probe.models[0]
    if (model === undefined) {
      throw new DemoUsageError(
        'model',
        `--base-url ${probe.baseURL} lists no models: name one with --model`,
      )
    }
    checkServedModel(model, probe)
    const kind = args.provider ?? 'completions'
    const local = await localServerProvider(probe.baseURL, model, kind, io.env.OPENAI_API_KEY)
    return {
      mode: 'local',
      model,
      headline:
        kind === 'openai'
          ? `contextkit demo · ${model} on the OpenAI-compatible server at ${probe.baseURL} (chat completions)`
          : `contextkit demo · ${model} on the OpenAI-compatible server at ${probe.baseURL}`,
      provider: local.provider,
      formatter: local.formatter,
      close: async () => {},
    }
  }
  const model = args.model ?? io.env.ANTHROPIC_MODEL ?? DEFAULT_DEMO_MODEL
  checkModelId(model)
  const apiKey = io.env.ANTHROPIC_API_KEY
  if (apiKey) {
    return {
      mode: 'claude',
      model,
      headline: `contextkit demo · Claude (${model}) with your ANTHROPIC_API_KEY`,
      client: new Anthropic({
        apiKey,
        ...(io.env.ANTHROPIC_BASE_URL ? { baseURL: io.env.ANTHROPIC_BASE_URL } : {}),
      }),
      close: async () => {},
    }
  }
  const emulator: AnthropicEmulator = await startAnthropicEmulator({ script: offlineScenario })
  return {
    mode: 'offline',
    model,
    headline: `contextkit demo · offline: the testkit emulator answers at ${emulator.url} (no ANTHROPIC_API_KEY set)`,
    client: new Anthropic({ apiKey: 'offline-demo', baseURL: emulator.url, maxRetries: 0 }),
    close: () => emulator.close(),
  }
}

/**
 * The context file of the run, checked the way the runner reads it (preload's reader: inside the
 * workspace, no symlink out, not a secret) so a refusal is one line and exit code 2 up front.
 */
export async function contextFileOf(
  args: DemoArgs,
  workspace: string,
): Promise<string | undefined> {
  const file =
    args.contextFile ??
    (existsSync(join(workspace, DEMO_CONTEXT_FILE)) ? DEMO_CONTEXT_FILE : undefined)
  if (file === undefined) return undefined
  const path = resolve(workspace, file)
  if (args.contextFile !== undefined && (!existsSync(path) || !statSync(path).isFile())) {
    const where = args.allowOutsideContextFile ? '' : ` in ${workspace}`
    throw new DemoUsageError('context_file', `--context-file ${file}: no such file${where}`)
  }
  try {
    await readContextFile(workspace, file, { allowOutside: args.allowOutsideContextFile === true })
  } catch (error) {
    if (!ContextFileRefusedError.isInstance(error)) throw error
    const what = args.contextFile === undefined ? 'context file' : '--context-file'
    const why = String(error.details.why)
    throw new DemoUsageError('context_file', `${what} ${file}: ${why}`, { cause: error })
  }
  return file
}

/** Files the message names that exist in the workspace (the context file aside): preloaded. */
function preloadFor(message: string, workspace: string, contextFile: string | undefined): string[] {
  return mentionedPaths(message).filter((p) => {
    if (contextFile !== undefined && resolve(workspace, p) === resolve(workspace, contextFile)) {
      return false
    }
    const path = resolve(workspace, p)
    return (
      !relative(workspace, path).startsWith('..') && existsSync(path) && statSync(path).isFile()
    )
  })
}

function usageLine(result: EmbeddedTurnResult, c: Terminal['c']): string {
  const u = result.result.usage
  const total = u.input + u.cacheRead + u.cacheWrite
  const rate = total > 0 ? `${(u.cacheHitRate * 100).toFixed(0)} %` : 'n/a'
  return `${c.bold('usage')}    ${result.result.steps} model call(s) · ${num(total)} input tokens (${num(u.cacheRead)} from the cache, ${num(u.cacheWrite)} written to it; hit rate ${rate}) · ${num(u.output)} output tokens`
}

export interface TurnSpec {
  sessionId: string
  text: string
  /** `--approve` / `--deny`: finish the session's paused run; `text` is not sent. */
  decision?: DemoDecision
}

/**
 * One turn of the embedded runner with the demo's output: the budget chart, the streamed events,
 * where the session and trace went, the usage, and the commands that finish a pause.
 */
export async function runTurn(
  spec: TurnSpec,
  backend: Backend,
  ctx: {
    workspace: string
    stores: DemoStores
    contextFile: string | undefined
    allowOutsideContextFile: boolean
    /** `--config`: the runner config file's settings. */
    config?: RunnerConfig
    out: Output
    io: CliIO
    steps: boolean
    /** `--workspace`/`--store` as given, for the commands that finish a paused run. */
    sameRunFlags: readonly string[]
  },
): Promise<EmbeddedTurnResult> {
  const { out, io } = ctx
  const live = out.json
    ? undefined
    : new LiveOutput(out.term, {
        animate: out.term.isTTY && !('CI' in io.env),
        ...(backend.mode === 'offline' ? { replyLabel: OFFLINE_ANSWER_MARK } : {}),
      })
  const maxTokens = 1024
  const collector = new BudgetChartCollector({
    maxTokens,
    onChart: (chart) => {
      if (out.json) out.json.event({ type: 'budget', ...chart })
      else if (live) {
        live.chart(chart)
        live.prefill = collector.nativePrefill
      }
    },
  })
  const c = out.term.c
  const said = spec.decision ? decisionText(spec.decision) : echoOf(spec.text)
  if (live) live.line(c.bold(`you (session ${spec.sessionId}) › ${said}`))
  const started = Date.now()
  const preloadFiles = preloadFor(spec.text, ctx.workspace, ctx.contextFile)
  const storeTrace = ctx.stores.openTrace?.(spec.sessionId)
  const result = await runEmbeddedTurn({
    ...(backend.provider
      ? { provider: backend.provider, formatter: backend.formatter ?? ('chatml' as const) }
      : {}),
    ...(backend.client ? { client: backend.client } : {}),
    model: backend.model,
    workspace: ctx.workspace,
    ...(spec.decision
      ? { resume: { approvals: approvalsOf(spec.decision) } }
      : { userText: spec.text }),
    writeFiles: 'ask',
    sessionId: spec.sessionId,
    ...(ctx.contextFile
      ? { contextFile: ctx.contextFile, allowOutsideContextFile: ctx.allowOutsideContextFile }
      : {}),
    preloadFiles,
    ...(ctx.config?.prefill ? { prefill: ctx.config.prefill } : {}),
    ...(ctx.config?.cacheTrace === false ? { traceFile: false } : {}),
    maxTokens,
    maxModelCalls: 6,
    trace: storeTrace ? teeTrace(collector.trace, storeTrace) : collector.trace,
    onPrepared: collector.onPrepared,
    // after Ctrl-C nothing more is shown: the one line says what happened
    onEvent: (event) => {
      if (io.signal?.aborted) return
      if (out.json) out.json.event(event)
      else live?.event(event)
    },
    ...(ctx.stores.sessionStore
      ? { sessionStore: ctx.stores.sessionStore, sessionLocation: ctx.stores.location }
      : {}),
    ...(ctx.stores.stateStore ? { stateStore: ctx.stores.stateStore } : {}),
    ...(io.signal ? { signal: io.signal } : {}),
  }).finally(async () => {
    live?.stop()
    await storeTrace?.flush()
  })
  if (io.signal?.aborted) throw new Error('interrupted')
  const state =
    ctx.stores.kind === 'files'
      ? join(ctx.workspace, '.contextkit', 'self-state.json')
      : `${ctx.stores.description.split(' (')[0]} (state table)`
  const pending = result.result.pending ?? []
  const where = {
    sessionId: spec.sessionId,
    command: [demoCommand(io.env), ...ctx.sameRunFlags].join(' '),
    term: out.term,
    workspace: ctx.workspace,
  }
  if (out.json) {
    if (pending.length > 0) await showPending(pending, { ...where, json: out.json })
    out.json.event({
      type: 'demo-turn-end',
      sessionId: spec.sessionId,
      session: result.sessionPath,
      trace: result.tracePath,
      resumptionState: state,
      stopReason: result.result.stopReason,
      turns: result.result.steps,
      usage: result.result.usage,
      ms: Date.now() - started,
    })
    return result
  }
  const term = out.term
  term.line()
  if (ctx.steps) {
    term.line(c.dim('the turn, step by step (from the trace):'))
    for (const line of describeTrace(result.trace.events)) term.line(c.dim(line))
    term.line()
  }
  const again = [demoCommand(io.env), ...ctx.sameRunFlags, '--session', spec.sessionId].join(' ')
  term.line(
    `${c.bold('session')}  ${result.sessionPath}  ${c.dim(`(continue it: ${again} "your message")`)}`,
  )
  term.line(`${c.bold('trace')}    ${result.tracePath ?? c.dim('off (cacheTrace: false)')}`)
  term.line(
    `${c.bold('state')}    ${state} ${c.dim('(resumption: the next session starts from these last words)')}`,
  )
  term.line(usageLine(result, c))
  term.line(
    `${c.bold('stopped')}  ${result.result.stopReason} after ${duration(Date.now() - started)}`,
  )
  if (pending.length > 0) await showPending(pending, where)
  return result
}

/** The `--config` file's settings; a file that cannot be read or used is a usage error. */
async function configOf(file: string): Promise<RunnerConfig> {
  try {
    return await loadRunnerConfig(file)
  } catch (error) {
    throw new DemoUsageError('config', `--config ${file}: ${describeError(error)}`, {
      cause: error,
    })
  }
}

/** A shell word: quoted when it holds anything but safe characters. */
function shellWord(word: string): string {
  return /^[\w./:@=+-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`
}

/** The flags a later command needs to reach the same session: `--workspace` and `--store`. */
function sameRunFlags(workspace: string, store: string | undefined): string[] {
  const flags = workspace === DEFAULT_DEMO_WORKSPACE ? [] : ['--workspace', shellWord(workspace)]
  return store === undefined ? flags : [...flags, '--store', shellWord(store)]
}

/** Tokens the reply is given (`maxTokens` of every call). */
const REPLY_TOKENS = 1024

/** A message that cannot fit the model's window even alone is refused before any call. */
function checkMessageSize(text: string, model: string): void {
  const info = getModelInfo(model)
  const tokens = createTokenCounter({ model: info }).count(text)
  const room = info.contextWindow - REPLY_TOKENS
  if (tokens > room) {
    throw new DemoUsageError(
      'message',
      `the message is about ${num(tokens)} tokens (${num(text.length)} characters); ${model} takes ${num(info.contextWindow)} tokens in all, ${num(room)} with room for the reply: shorten it or send a file the agent can read`,
    )
  }
}

/** Where the interrupted run's steps are, for the one Ctrl-C line. */
interface SessionNote {
  id: string
  where: string
}

function interrupted(io: CliIO, note: SessionNote | undefined): number {
  const saved = note
    ? ` What finished is saved in session ${note.id} (${note.where}); continue it with --session ${note.id}.`
    : ''
  io.stderr.write(`demo: interrupted (Ctrl-C).${saved}\n`)
  return INTERRUPTED_EXIT_CODE
}

/**
 * `pnpm demo`: parse the arguments, check them (workspace, model id, `--base-url`, `--store`),
 * then run the embedded runner on the message — or the two-session walkthrough without one —
 * against the testkit emulator (offline), Claude (`ANTHROPIC_API_KEY`) or a local
 * OpenAI-compatible server (`--base-url`). Shows the budget chart before the first model call,
 * the streamed reply, a line per tool, and where the session and trace went with the usage;
 * `--json` prints events as JSON lines instead. Returns the exit code: 0, 1 when the run failed,
 * 2 for bad input (one line on stderr).
 */
export async function runDemoCli(argv: readonly string[], io: CliIO): Promise<number> {
  const term = createTerminal(io.stdout, io.env)
  const fail = (text: string, code: number) => {
    io.stderr.write(`demo: ${text}\n`)
    return code
  }
  const cleanups: Array<() => Promise<void>> = []
  let sessionNote: SessionNote | undefined
  try {
    const args = parseDemoArgs(argv)
    if (args.help) {
      term.line(DEMO_USAGE)
      return 0
    }
    if (args.session !== undefined) {
      try {
        assertSessionId(args.session, '--session')
      } catch {
        throw new DemoUsageError(
          'bad_flag',
          `--session "${args.session}": use 1–200 of A-Z a-z 0-9 . _ -`,
        )
      }
    }
    const message =
      args.messageFile !== undefined ? await readMessage(args.messageFile, io) : args.message
    const walkthrough = message === undefined && args.decision === undefined
    const workspaceDir =
      args.workspace !== undefined
        ? resolve(io.cwd, args.workspace)
        : walkthrough
          ? await mkdtemp(join(tmpdir(), 'contextkit-demo-'))
          : DEFAULT_DEMO_WORKSPACE
    // only the default demo workspace (and the walkthrough's temp dir) is made without asking
    const ws = await prepareWorkspace(workspaceDir, {
      create: args.init || args.workspace === undefined,
    })
    const contextFile = await contextFileOf(args, ws.dir)
    const config =
      args.config === undefined ? undefined : await configOf(resolve(io.cwd, args.config))
    const backend = await backendFor(args, io)
    cleanups.push(() => backend.close())
    const stores = await openStores(args.store, ws.dir, io.cwd)
    cleanups.push(() => stores.close())
    const out: Output = { term, ...(args.json ? { json: new JsonOutput(io.stdout) } : {}) }
    const info = getModelInfo(backend.model)
    const where = `${ws.dir}${ws.created ? ' (created from the demo template)' : ''}`
    if (out.json) {
      out.json.event({
        type: 'demo-start',
        mode: backend.mode,
        headline: backend.headline,
        model: backend.model,
        workspace: ws.dir,
        created: ws.created,
        store: stores.description,
      })
    } else {
      term.line(term.c.bold(backend.headline))
      term.line(
        term.c.dim(
          `model ${backend.model} (${num(info.contextWindow)}-token window, prefill ${info.supportsPrefill ? 'supported' : 'not supported'}) · workspace ${where} · store ${stores.description}`,
        ),
      )
      term.line()
    }
    const turns: TurnSpec[] = args.decision
      ? [{ sessionId: args.session ?? '', text: '', decision: args.decision }]
      : walkthrough
        ? DEMO_TURNS.map((t) => ({ sessionId: t.sessionId, text: t.text }))
        : [{ sessionId: args.session ?? newSessionId(), text: message ?? '' }]
    for (const t of turns) checkMessageSize(t.text, backend.model)
    let paused = false
    const settings: TurnSettings = {
      workspace: ws.dir,
      stores,
      contextFile,
      allowOutsideContextFile: args.allowOutsideContextFile === true,
      ...(config ? { config } : {}),
      out,
      io,
      steps: walkthrough,
      sameRunFlags: sameRunFlags(ws.dir, args.store),
    }
    if (args.inspect)
      cleanups.push(await inspectRuns(ws.dir, demoResume(backend, settings), out, stores))
    for (const [i, spec] of turns.entries()) {
      if (i > 0 && !out.json) term.line(term.c.dim('─'.repeat(60)))
      sessionNote = { id: spec.sessionId, where: stores.description }
      const turn = await runTurn(spec, backend, settings)
      paused ||= turn.result.stopReason === 'awaiting_approval'
    }
    if (walkthrough && args.workspace === undefined && !out.json) {
      // kept: the session and trace paths printed above, and "continue it", point into it
      term.line()
      term.line(
        term.c.dim(
          `The walkthrough's workspace is kept at ${ws.dir}; remove it with: rm -rf ${shellWord(ws.dir)}`,
        ),
      )
    }
    if (!out.json && !paused) {
      term.line()
      term.line(
        term.c.dim(
          walkthrough
            ? `Ask your own: ${demoCommand(io.env)} "What files are in this workspace?" (run it twice to see resumption)`
            : 'Run it again: the next session wakes up with these last words (resumption).',
        ),
      )
    }
    if (args.inspect) {
      if (!out.json) term.line(term.c.dim('The inspector keeps serving: Ctrl-C stops it.'))
      await untilStopped(io.signal)
    }
    return 0
  } catch (error) {
    if (io.signal?.aborted) return interrupted(io, sessionNote)
    if (DemoUsageError.isInstance(error)) return fail(error.message, USAGE_EXIT_CODE)
    return fail(`the run failed: ${describeError(error)}`, 1)
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {})
  }
}
