// One turn of `pnpm demo` with its output (the budget chart, the streamed events, where the
// session and trace went, the usage, the commands that finish a pause), and what it runs on.
import { existsSync, statSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import type Anthropic from '@anthropic-ai/sdk'
import type { ModelProvider } from '@contextkit/agent-loop'
import { describeTrace } from '../describe-turn.js'
import {
  type EmbeddedTurnResult,
  type FormatterChoice,
  runEmbeddedTurn,
} from '../embedded-runner.js'
import type { RunnerConfig } from '../runner-config.js'
import { teeTrace } from '../tee-trace.js'
import { approvalsOf, decisionText, showPending } from './approval-output.js'
import type { DemoDecision } from './args.js'
import { BudgetChartCollector } from './budget-collector.js'
import type { JsonOutput } from './json-output.js'
import { LiveOutput } from './live-output.js'
import { mentionedPaths, OFFLINE_ANSWER_MARK } from './offline-scenario.js'
import type { CliIO } from './run-cli.js'
import type { DemoStores } from './stores.js'
import { duration, num, type Terminal } from './terminal.js'

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

type Mode = 'offline' | 'claude' | 'local'

/** Who answers the demo: the emulator (offline), Claude, or a local server, and how to reach it. */
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

/** Where a turn's output goes: the terminal, or JSON lines (`--json`). */
export interface Output {
  term: Terminal
  json?: JsonOutput
}

/** A new session id per run: `chat-2026-03-01T09-00-00-000` (milliseconds included). */
export function newSessionId(now: Date = new Date()): string {
  return `chat-${now.toISOString().slice(0, 23).replace(/[:.]/g, '-')}`
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
