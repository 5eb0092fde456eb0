import { existsSync, statSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, relative, resolve } from 'node:path'
import Anthropic from '@anthropic-ai/sdk'
import type { ModelProvider } from '@contextkit/agent-loop'
import { assertSessionId, describeError, getModelInfo } from '@contextkit/core'
import { type AnthropicEmulator, startAnthropicEmulator } from '@contextkit/testkit'
import { DEMO_TURNS } from '../demo-script.js'
import { DEMO_CONTEXT_FILE } from '../demo-workspace.js'
import { describeTrace } from '../describe-turn.js'
import {
  type EmbeddedTurnResult,
  type FormatterChoice,
  runEmbeddedTurn,
} from '../embedded-runner.js'
import { DEMO_USAGE, type DemoArgs, parseDemoArgs } from './args.js'
import { BudgetChartCollector } from './budget-collector.js'
import { checkModelId, checkServedModel, probeBaseUrl } from './checks.js'
import { DemoUsageError, USAGE_EXIT_CODE } from './errors.js'
import { JsonOutput } from './json-output.js'
import { LiveOutput } from './live-output.js'
import { localServerProvider } from './local-provider.js'
import { mentionedPaths, offlineScenario } from './offline-scenario.js'
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
}

/** Default model when neither `--model` nor `ANTHROPIC_MODEL` names one. */
export const DEFAULT_DEMO_MODEL = 'claude-haiku-4-5'

/** Default workspace of a message run: kept between runs, so a second run resumes the first. */
export const DEFAULT_DEMO_WORKSPACE = join(tmpdir(), 'contextkit-demo')

type Mode = 'offline' | 'claude' | 'local'

interface Backend {
  mode: Mode
  model: string
  /** The first line of the output. */
  headline: string
  client?: Anthropic
  provider?: ModelProvider
  formatter?: FormatterChoice
  close(): Promise<void>
}

interface Output {
  term: Terminal
  json?: JsonOutput
}

/** A new session id per run: `chat-2026-03-01T09-00-00-000` (milliseconds included). */
export function newSessionId(now: Date = new Date()): string {
  return `chat-${now.toISOString().slice(0, 23).replace(/[:.]/g, '-')}`
}

async function backendFor(args: DemoArgs, io: CliIO): Promise<Backend> {
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

function contextFileOf(args: DemoArgs, workspace: string): string | undefined {
  if (args.contextFile !== undefined) {
    const path = resolve(workspace, args.contextFile)
    if (!existsSync(path) || !statSync(path).isFile()) {
      throw new DemoUsageError(
        'context_file',
        `--context-file ${args.contextFile}: no such file in ${workspace}`,
      )
    }
    return args.contextFile
  }
  return existsSync(join(workspace, DEMO_CONTEXT_FILE)) ? DEMO_CONTEXT_FILE : undefined
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
  return `${c.bold('usage')}    ${result.result.turns} model call(s) · ${num(total)} input tokens (${num(u.cacheRead)} from the cache, ${num(u.cacheWrite)} written to it; hit rate ${rate}) · ${num(u.output)} output tokens`
}

interface TurnSpec {
  sessionId: string
  text: string
}

async function runTurn(
  spec: TurnSpec,
  backend: Backend,
  ctx: {
    workspace: string
    stores: DemoStores
    contextFile: string | undefined
    out: Output
    io: CliIO
    steps: boolean
  },
): Promise<EmbeddedTurnResult> {
  const { out, io } = ctx
  const live = out.json
    ? undefined
    : new LiveOutput(out.term, { animate: out.term.isTTY && !('CI' in io.env) })
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
  if (live) live.line(c.bold(`you (session ${spec.sessionId}) › ${spec.text}`))
  const started = Date.now()
  const preloadFiles = preloadFor(spec.text, ctx.workspace, ctx.contextFile)
  const result = await runEmbeddedTurn({
    ...(backend.provider
      ? { provider: backend.provider, formatter: backend.formatter ?? ('chatml' as const) }
      : {}),
    ...(backend.client ? { client: backend.client } : {}),
    model: backend.model,
    workspace: ctx.workspace,
    userText: spec.text,
    sessionId: spec.sessionId,
    ...(ctx.contextFile ? { contextFile: ctx.contextFile } : {}),
    preloadFiles,
    maxTokens,
    maxModelCalls: 6,
    trace: collector.trace,
    onPrepared: collector.onPrepared,
    onEvent: (event) => (out.json ? out.json.event(event) : live?.event(event)),
    ...(ctx.stores.sessionStore
      ? { sessionStore: ctx.stores.sessionStore, sessionLocation: ctx.stores.location }
      : {}),
    ...(ctx.stores.stateStore ? { stateStore: ctx.stores.stateStore } : {}),
    ...(io.signal ? { signal: io.signal } : {}),
  }).finally(() => live?.stop())
  const state =
    ctx.stores.kind === 'files'
      ? join(ctx.workspace, '.contextkit', 'self-state.json')
      : `${ctx.stores.description.split(' (')[0]} (state table)`
  if (out.json) {
    out.json.event({
      type: 'demo-turn-end',
      sessionId: spec.sessionId,
      session: result.sessionPath,
      trace: result.tracePath,
      resumptionState: state,
      stopReason: result.result.stopReason,
      turns: result.result.turns,
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
  term.line(
    `${c.bold('session')}  ${result.sessionPath}  ${c.dim(`(continue it with --session ${spec.sessionId})`)}`,
  )
  term.line(`${c.bold('trace')}    ${result.tracePath}`)
  term.line(
    `${c.bold('state')}    ${state} ${c.dim('(resumption: the next session starts from these last words)')}`,
  )
  term.line(usageLine(result, c))
  term.line(
    `${c.bold('stopped')}  ${result.result.stopReason} after ${duration(Date.now() - started)}`,
  )
  return result
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
    const walkthrough = args.message === undefined
    const workspaceDir =
      args.workspace !== undefined
        ? resolve(io.cwd, args.workspace)
        : walkthrough
          ? await mkdtemp(join(tmpdir(), 'contextkit-demo-'))
          : DEFAULT_DEMO_WORKSPACE
    if (walkthrough && args.workspace === undefined) {
      cleanups.push(() => rm(workspaceDir, { recursive: true, force: true }))
    }
    const ws = await prepareWorkspace(workspaceDir)
    const contextFile = contextFileOf(args, ws.dir)
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
    const turns: TurnSpec[] = walkthrough
      ? DEMO_TURNS.map((t) => ({ sessionId: t.sessionId, text: t.text }))
      : [{ sessionId: args.session ?? newSessionId(), text: args.message ?? '' }]
    for (const [i, spec] of turns.entries()) {
      if (i > 0 && !out.json) term.line(term.c.dim('─'.repeat(60)))
      await runTurn(spec, backend, {
        workspace: ws.dir,
        stores,
        contextFile,
        out,
        io,
        steps: walkthrough,
      })
    }
    if (!out.json) {
      term.line()
      term.line(
        term.c.dim(
          walkthrough
            ? 'Ask your own: pnpm demo "What files are in this workspace?" (run it twice to see resumption)'
            : 'Run it again: the next session wakes up with these last words (resumption).',
        ),
      )
    }
    return 0
  } catch (error) {
    if (DemoUsageError.isInstance(error)) return fail(error.message, USAGE_EXIT_CODE)
    return fail(`the run failed: ${describeError(error)}`, 1)
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {})
  }
}
