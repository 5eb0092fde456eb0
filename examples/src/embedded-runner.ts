import { randomUUID } from 'node:crypto'
import { isAbsolute, join, relative, resolve } from 'node:path'
import Anthropic from '@anthropic-ai/sdk'
import {
  AGENT_TRACE_STAGES,
  AgentAbortedError,
  type AgentEvent,
  type AgentResult,
  type ModelProvider,
  maxSteps,
  type ProviderRequest,
  type RunAgentOptions,
  runAgent,
} from '@contextkit/agent-loop'
import {
  type AnthropicStreamParams,
  anthropicProvider,
  toStreamParams,
} from '@contextkit/agent-loop/anthropic'
import { contextMetadata } from '@contextkit/context-metadata/node'
import {
  type AssistantMessage,
  ConfigurationError,
  type ContextMiddleware,
  type MemoryTrace,
  type Message,
  type ModelInfo,
  memoryTrace,
  type SessionStore,
  type StateStore,
  sessionMessages,
  type Trace,
  type TurnContext,
  textMessage,
} from '@contextkit/core'
import { jsonlTrace } from '@contextkit/core/node'
import {
  AnthropicXmlFormatter,
  ChatMLFormatter,
  type Formatter,
  NativeFormatter,
} from '@contextkit/formatters'
import { type PrefillConfigInput, prefill } from '@contextkit/prefill/node'
import { preload } from '@contextkit/preload/node'
import type { SelfState } from '@contextkit/resumption'
import { resumption } from '@contextkit/resumption/node'
import { type ContextFileText, readContextFile } from './context-file-reader.js'
import { listFilesTool } from './list-files-tool.js'
import { readFileTool } from './read-file-tool.js'
import { runnerSessionStore } from './runner-sessions.js'
import { teeTrace } from './tee-trace.js'
import { writeFileTool } from './write-file-tool.js'

/** Identity text used when `system` is not given. */
export const DEFAULT_IDENTITY =
  'You are a careful coding agent working in a project workspace. Use the list_files and read_file tools to look at files before you describe them.'

/**
 * Which prompt format the runner prefers (`formatterFor` swaps a chat format when the model
 * cannot take it): `xml` and `native` for the Messages API, `chatml` for a prompt-string
 * (completions) provider.
 */
export type FormatterChoice = 'xml' | 'native' | 'chatml'

/** Options of {@link runEmbeddedTurn}. */
export interface EmbeddedTurnOptions {
  /**
   * The model behind any API (e.g. the completions provider for a local server). Wins over
   * `client`; requests are then recorded in `providerRequests` only.
   */
  provider?: ModelProvider
  /** An Anthropic client (real API or testkit's emulator). Alternative: `apiKey` + `baseURL`. */
  client?: Anthropic
  /** API key for a client built here when `client` is not given. */
  apiKey?: string
  /** Base URL for a client built here (e.g. the emulator's `url`). Default: the SDK's. */
  baseURL?: string
  /** Model id (capabilities from core's table) or a `ModelInfo` you built. */
  model: string | ModelInfo
  /** The agent's workspace: bootstrap files, PREFILL.md, tool root, session and state files. */
  workspace: string
  /** What the user says this turn. Not given with `resume`: a resumed run adds no message. */
  userText?: string
  /**
   * Finish the session's paused run instead of starting a turn: `{ approvals }` decides the calls
   * it waits on (`stopReason: 'awaiting_approval'`), by tool call id. No user message is added.
   */
  resume?: { approvals: Readonly<Record<string, EmbeddedApproval>> }
  /**
   * Give the model `write_file` (inside the workspace) with this approval policy: `'ask'` pauses
   * the run on each write until `resume` decides it; `'allow'` writes at once. Default: no
   * `write_file` (the runner only reads).
   */
  writeFiles?: 'ask' | 'allow'
  /** Session name: `<workspace>/.contextkit/sessions/<sessionId>.jsonl`. Default `'main'`. */
  sessionId?: string
  /**
   * A large context file to describe to the model: workspace-relative (or absolute inside the
   * workspace), read through preload's reader ({@link readContextFile}), so a symlink out of the
   * workspace or a `..` path is refused with a `ContextFileRefusedError`.
   */
  contextFile?: string
  /** Read `contextFile` wherever it is, symlinks followed (the demo's `--allow-outside-context-file`). Default `false`. */
  allowOutsideContextFile?: boolean
  /** Workspace-relative files to preload into the user turn. Default none. */
  preloadFiles?: readonly string[]
  /** Identity text, the first stable system section. Default {@link DEFAULT_IDENTITY}. */
  system?: string
  /**
   * `'xml'` (transcript format, native tools; default), `'native'` (plain messages) or
   * `'chatml'` (one prompt string, for a completions `provider`).
   */
  formatter?: FormatterChoice
  /**
   * Where sessions live. Default: agent-loop's JSONL store in `<workspace>/.contextkit/sessions/`.
   * Give `postgresSessionStore(db)` to share them between workers.
   */
  sessionStore?: SessionStore
  /** How to name where a session of `sessionStore` is, for `sessionPath`. Default `store:<id>`. */
  sessionLocation?: (sessionId: string) => string
  /**
   * Where resumption keeps its state. Default: `<workspace>/.contextkit/self-state.json`. Give
   * `postgresStateStore(db)` to share it between workers.
   */
  stateStore?: StateStore<SelfState>
  /** Called with every event of the run as it happens (streamed text, tool calls, usage…). */
  onEvent?: (event: AgentEvent) => void
  /** Called once with the turn the middleware prepared (system, user sections, prefill, vars). */
  onPrepared?: (turn: TurnContext) => void
  /** `max_tokens` of each call, capped at the model's output limit. Default `1024`. */
  maxTokens?: number
  /** Model calls per turn (the `maxSteps` stop condition). Default `4`. */
  maxModelCalls?: number
  /** Token budget for system + user sections. Default: context window − reply − history. */
  budgetTokens?: number
  /** Where else to record the trace (it always goes to a JSONL file and a memory trace). */
  trace?: Trace
  /** Clock for the resumption state. Default `Date.now`. */
  now?: () => number
  /** The prefill middleware's config (`agents.defaults.prefill` of `--config`). Default: its defaults. */
  prefill?: PrefillConfigInput
  /**
   * Write the session's JSONL trace file (`agents.defaults.cacheTrace` of `--config`). Default
   * `true`; `false` keeps the trace in memory (`trace` in the result) only.
   */
  traceFile?: boolean
  signal?: AbortSignal
}

/** A person's decision on a call the run paused on (agent-loop's `resume.approvals` value). */
export type EmbeddedApproval = { approve: true } | { approve: false; reason?: string }

/** What one turn did. */
export interface EmbeddedTurnResult {
  /**
   * The final reply as saved (ephemeral parts stripped). For a run that paused
   * (`result.stopReason === 'awaiting_approval'`, `result.pending`), the reply that asked for
   * the waiting calls.
   */
  reply: AssistantMessage
  /** Messages appended to the session file this turn (the user's unless resumed, then the run's). */
  saved: Message[]
  /** Every request sent, as SDK stream params (Anthropic client only; empty with `provider`). */
  requests: AnthropicStreamParams[]
  /** Every request sent, as the provider received it. */
  providerRequests: ProviderRequest[]
  /** Every event of this turn. */
  trace: MemoryTrace
  /** The agent loop's result. */
  result: AgentResult
  /** The session file, or where `sessionStore` keeps the session (`sessionLocation`). */
  sessionPath: string
  /** The session's JSONL trace file; absent when `traceFile` is `false`. */
  tracePath?: string
  /** Whether a provider error was recovered from by a middleware (the no-prefill 400). */
  recovered: boolean
}

function clientOf(options: EmbeddedTurnOptions): Anthropic {
  if (options.client) return options.client
  if (!options.apiKey) {
    throw new ConfigurationError('runEmbeddedTurn needs a `client`, or an `apiKey` (+ `baseURL`)')
  }
  return new Anthropic({
    apiKey: options.apiKey,
    ...(options.baseURL ? { baseURL: options.baseURL } : {}),
  })
}

/**
 * The context file as the hint names it: workspace-relative when inside (what the tools take,
 * and the same prompt whatever folder the workspace is in), else its absolute path.
 */
function contextRefPath(workspace: string, path: string): string {
  const rel = relative(workspace, path)
  return rel === '' || rel.startsWith('..') || isAbsolute(rel) ? path : rel.split('\\').join('/')
}

function middlewareFor(
  options: EmbeddedTurnOptions,
  context: ContextFileText | undefined,
): ContextMiddleware[] {
  const list: ContextMiddleware[] = [
    preload({ references: options.preloadFiles ?? [] }),
    resumption({
      ...(options.now ? { now: options.now } : {}),
      ...(options.stateStore ? { store: options.stateStore } : {}),
    }),
  ]
  if (context !== undefined) {
    list.push(
      contextMetadata({
        content: context.text,
        fileName: context.fileName,
        hint: { contextRef: `file ${contextRefPath(options.workspace, context.path)}` },
      }),
    )
  }
  list.push(prefill(options.prefill ?? {}))
  const onPrepared = options.onPrepared
  if (onPrepared) {
    // last in the list, so it sees the turn every other middleware prepared; it only looks
    list.push({
      name: 'observe-prepared',
      prepare(turn) {
        onPrepared(turn)
        return turn
      },
    })
  }
  return list
}

function formatterOf(choice: FormatterChoice | undefined): Formatter {
  if (choice === 'native') return new NativeFormatter()
  if (choice === 'chatml') return new ChatMLFormatter()
  return new AnthropicXmlFormatter({ toolMode: 'native' })
}

/** A provider that records every request, and the SDK params it becomes when `sdk` is set. */
function recording(
  inner: ModelProvider,
  requests: ProviderRequest[],
  sdk: AnthropicStreamParams[] | undefined,
): ModelProvider {
  return {
    name: inner.name,
    stream(request, options) {
      requests.push(request)
      sdk?.push(toStreamParams(request))
      return inner.stream(request, options)
    },
  }
}

function lastReply(messages: readonly Message[]): AssistantMessage | undefined {
  const replies = messages.filter((m): m is AssistantMessage => m.role === 'assistant')
  return replies[replies.length - 1]
}

/**
 * A run that still waits for approval and added nothing (a `resume` whose decisions named no
 * waiting call): the reply that asked for the waiting calls, from the session.
 */
async function waitingReply(
  result: AgentResult,
  store: SessionStore,
  sessionId: string,
): Promise<AssistantMessage | undefined> {
  if (result.stopReason !== 'awaiting_approval') return undefined
  return lastReply(sessionMessages((await store.load(sessionId)).entries))
}

/** The `runAgent` options one turn of the runner uses, less what a run adds (`messages`, `session`, `resume`). */
export type EmbeddedAgentOptions = Omit<RunAgentOptions, 'messages' | 'session' | 'resume'>

/** What {@link embeddedAgentSetup} builds for one turn. */
export interface EmbeddedAgentSetup {
  /** The options: provider, model, system, tools, middleware, formatter, limits, trace, run id. */
  options: EmbeddedAgentOptions
  /** The session store: `sessionStore`, else the workspace's JSONL files (`files`). */
  store: SessionStore
  files: ReturnType<typeof runnerSessionStore> | undefined
  /** The run's memory trace (every event). */
  memory: MemoryTrace
  /** The JSONL trace file; absent when `traceFile` is `false`. */
  tracePath: string | undefined
  /** Requests sent, as SDK params (Anthropic client only) and as the provider got them. */
  requests: AnthropicStreamParams[]
  providerRequests: ProviderRequest[]
}

/**
 * The runner's `runAgent` options for one turn of `options.sessionId`: the provider (recording
 * every request), the identity section, the tools, the middleware (preload, resumption, the
 * context-file hint, prefill), the formatter, the limits and the trace (memory, the JSONL file,
 * `trace`). {@link runEmbeddedTurn} adds the message and the session; a queue worker
 * (`@contextkit/worker`'s `run(job)`) returns `options` and the worker adds them.
 */
export async function embeddedAgentSetup(
  options: EmbeddedTurnOptions,
): Promise<EmbeddedAgentSetup> {
  const workspace = resolve(options.workspace)
  const sessionId = options.sessionId ?? 'main'
  const files = options.sessionStore ? undefined : runnerSessionStore(workspace)
  const context =
    options.contextFile === undefined
      ? undefined
      : await readContextFile(workspace, options.contextFile, {
          allowOutside: options.allowOutsideContextFile === true,
        })
  const toFile = options.traceFile !== false
  const tracePath = toFile
    ? join(workspace, '.contextkit', 'traces', `${sessionId}.jsonl`)
    : undefined
  const memory = memoryTrace()
  const trace = teeTrace(
    memory,
    ...(tracePath ? [jsonlTrace(tracePath, { root: workspace })] : []),
    ...(options.trace ? [options.trace] : []),
  )
  const requests: AnthropicStreamParams[] = []
  const providerRequests: ProviderRequest[] = []
  const provider = options.provider
    ? recording(options.provider, providerRequests, undefined)
    : recording(anthropicProvider({ client: clientOf(options) }), providerRequests, requests)
  const tools = [listFilesTool(workspace), readFileTool(workspace)]
  const writes = options.writeFiles
  return {
    options: {
      provider,
      model: options.model,
      system: [
        {
          id: 'identity',
          text: options.system ?? DEFAULT_IDENTITY,
          priority: 100,
          cache: 'stable',
        },
      ],
      tools: writes ? [...tools, writeFileTool(workspace, undefined, { approval: writes })] : tools,
      middleware: middlewareFor(options, context),
      formatter: formatterOf(options.formatter),
      stopWhen: maxSteps(options.maxModelCalls ?? 4),
      maxTokens: options.maxTokens ?? 1024,
      workspace,
      trace,
      runId: `${sessionId}-${randomUUID().slice(0, 8)}`,
      ...(options.budgetTokens === undefined ? {} : { budgetTokens: options.budgetTokens }),
      ...(options.signal ? { signal: options.signal } : {}),
    },
    store: options.sessionStore ?? files!,
    files,
    memory,
    tracePath,
    requests,
    providerRequests,
  }
}

/**
 * Run one user turn the way OpenClaw's `attempt.ts` does, with `runAgent` doing the ARCHITECTURE
 * turn table: load the JSONL session (1); prepare bootstrap files, resumption, the context-file
 * hint and the prefill with the middleware (2–4, 6); fit the sections to the budget (5); render,
 * stream, parse and run `list_files`/`read_file` until the model stops (7–9, the prefill middleware's `recover`
 * handling the no-prefill 400); finalize every reply (10) and append each step to the session
 * (11). Every step is recorded in a JSONL trace in the workspace and in the returned memory trace.
 * A run that ends in an error is rethrown (its typed `ProviderError` or other error) after the
 * loop finalized it; nothing of a failed step is saved. A run that pauses for approval
 * (`writeFiles: 'ask'`) is not an error: `result.stopReason` is `'awaiting_approval'`, `reply` the
 * reply that asked, and a later call with `resume: { approvals }` (no `userText`) finishes it.
 */
export async function runEmbeddedTurn(options: EmbeddedTurnOptions): Promise<EmbeddedTurnResult> {
  const sessionId = options.sessionId ?? 'main'
  if (options.resume === undefined && options.userText === undefined) {
    throw new ConfigurationError('runEmbeddedTurn needs `userText`, or `resume` to finish a run')
  }
  const setup = await embeddedAgentSetup(options)
  const { store, files, memory, tracePath, requests, providerRequests } = setup
  const user = options.resume ? undefined : textMessage('user', options.userText ?? '')
  const run = runAgent({
    ...setup.options,
    messages: user ? [user] : [],
    ...(options.resume ? { resume: { approvals: { ...options.resume.approvals } } } : {}),
    session: { store, id: sessionId },
  })
  const onEvent = options.onEvent
  if (onEvent) {
    try {
      for await (const event of run.events) onEvent(event)
    } catch (error) {
      run.abort()
      await run.result
      throw error
    }
  }
  const result = await run.result
  if (result.stopReason === 'error' && result.error) throw result.error
  const reply = lastReply(result.messages) ?? (await waitingReply(result, store, sessionId))
  if (!reply) {
    throw (
      result.error ?? new AgentAbortedError(`the run ended without a reply (${result.stopReason})`)
    )
  }
  return {
    reply,
    saved: user ? [user, ...result.messages] : result.messages,
    requests,
    providerRequests,
    trace: memory,
    result,
    sessionPath: files
      ? files.pathOf(sessionId)
      : (options.sessionLocation?.(sessionId) ?? `store:${sessionId}`),
    ...(tracePath === undefined ? {} : { tracePath }),
    recovered: memory.byStage(AGENT_TRACE_STAGES.recovered).length > 0,
  }
}
