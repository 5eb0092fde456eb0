import { existsSync, statSync } from 'node:fs'
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import Anthropic from '@anthropic-ai/sdk'
import { assertSessionId, describeError, getModelInfo } from '@contextkit/core'
import { type AnthropicEmulator, startAnthropicEmulator } from '@contextkit/testkit'
import { ContextFileRefusedError, readContextFile } from '../context-file-reader.js'
import { DEMO_TURNS } from '../demo-script.js'
import { DEMO_CONTEXT_FILE } from '../demo-workspace.js'
import { loadRunnerConfig, type RunnerConfig } from '../runner-config.js'
import { DEMO_USAGE, type DemoArgs, type DemoWorkersArgs, parseDemoArgs } from './args.js'
import { checkModelId, checkServedModel, probeBaseUrl } from './checks.js'
import { demoResume, type TurnSettings } from './demo-resume.js'
import { DemoUsageError, USAGE_EXIT_CODE } from './errors.js'
import { inspectRuns, untilStopped } from './inspect.js'
import { JsonOutput } from './json-output.js'
import { localServerProvider } from './local-provider.js'
import { checkMessageSize, readMessage } from './message-input.js'
import { offlineScenario } from './offline-scenario.js'
import {
  type Backend,
  demoCommand,
  newSessionId,
  type Output,
  runTurn,
  type TurnSpec,
} from './run-turn.js'
import { type DemoStores, openStores, postgresUrlOf } from './stores.js'
import { createTerminal, num, type OutputStream, type Terminal } from './terminal.js'
import { runWorkersDemo } from './workers-demo.js'
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

/** Default model when neither `--model` nor `ANTHROPIC_MODEL` names one. */
export const DEFAULT_DEMO_MODEL = 'claude-haiku-4-5'

/** Default workspace of a message run: kept between runs, so a second run resumes the first. */
export const DEFAULT_DEMO_WORKSPACE = join(tmpdir(), 'contextkit-demo')

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

/** What {@link workersRun} runs on: what `runDemoCli` opened. */
interface WorkersRunContext {
  backend: Backend
  stores: DemoStores
  ws: string
  contextFile: string | undefined
  /** The walkthrough's temp workspace, kept: say where it is. */
  kept: boolean
  turns: readonly TurnSpec[]
  term: Terminal
  io: CliIO
  cleanups: Array<() => Promise<void>>
}

/**
 * `--workers N`: each session's messages (`turns`) as jobs on N worker processes; then, with
 * `--inspect`, the inspector keeps serving until Ctrl-C. Returns the exit code: 1 when jobs were
 * left unfinished on the queue.
 */
async function workersRun(
  args: DemoArgs,
  workers: DemoWorkersArgs,
  ctx: WorkersRunContext,
): Promise<number> {
  const { term, io } = ctx
  const run = await runWorkersDemo({
    workers,
    messages: ctx.turns.map((t) => t.text),
    url: postgresUrlOf(args.store ?? '') ?? '',
    stores: ctx.stores,
    workspace: ctx.ws,
    model: ctx.backend.model,
    contextFile: ctx.contextFile,
    allowOutsideContextFile: args.allowOutsideContextFile === true,
    baseURL: ctx.backend.mode === 'offline' ? ctx.backend.client?.baseURL : undefined,
    inspect: args.inspect === true,
    term,
    log: (line) => io.stderr.write(`${line}\n`),
    ...(io.signal ? { signal: io.signal } : {}),
    cleanups: ctx.cleanups,
  })
  if (ctx.kept) {
    term.line(
      term.c.dim(`The workspace is kept at ${ctx.ws}; remove it with: rm -rf ${shellWord(ctx.ws)}`),
    )
  }
  if (run.unfinished > 0) {
    io.stderr.write(`demo: ${run.unfinished} job(s) left unfinished on the queue\n`)
    return 1
  }
  if (args.inspect) {
    term.line(term.c.dim('The inspector keeps serving: Ctrl-C stops it.'))
    await untilStopped(io.signal)
  }
  return 0
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
    // --workers: each of its sessions gets these messages (the walkthrough's two without one)
    const turns: TurnSpec[] = args.decision
      ? [{ sessionId: args.session ?? '', text: '', decision: args.decision }]
      : walkthrough
        ? DEMO_TURNS.map((t) => ({ sessionId: t.sessionId, text: t.text }))
        : [{ sessionId: args.session ?? newSessionId(), text: message ?? '' }]
    for (const t of turns) checkMessageSize(t.text, backend.model)
    if (args.workers) {
      const kept = walkthrough && args.workspace === undefined
      return await workersRun(args, args.workers, {
        backend,
        stores,
        ws: ws.dir,
        contextFile,
        kept,
        turns,
        term,
        io,
        cleanups,
      })
    }
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
