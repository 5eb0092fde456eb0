import { randomUUID } from 'node:crypto'
import { isAbsolute, join, resolve } from 'node:path'
import Anthropic from '@anthropic-ai/sdk'
import {
  AGENT_TRACE_STAGES,
  AgentAbortedError,
  type AgentResult,
  type ModelProvider,
  maxTurns,
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
  type Trace,
  textMessage,
} from '@contextkit/core'
import { jsonlTrace } from '@contextkit/core/node'
import { AnthropicXmlFormatter, NativeFormatter } from '@contextkit/formatters'
import { prefill } from '@contextkit/prefill/node'
import { preload } from '@contextkit/preload/node'
import { resumption } from '@contextkit/resumption/node'
import { readFileTool } from './read-file-tool.js'
import { runnerSessionStore } from './runner-sessions.js'
import { teeTrace } from './tee-trace.js'

/** Identity text used when `system` is not given. */
export const DEFAULT_IDENTITY =
  'You are a careful coding agent working in a project workspace. Use the read_file tool to look at files before you describe them.'

/** Which prompt format the runner prefers (`formatterFor` swaps it when the model cannot take it). */
export type FormatterChoice = 'xml' | 'native'

/** Options of {@link runEmbeddedTurn}. */
export interface EmbeddedTurnOptions {
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
  /** What the user says this turn. */
  userText: string
  /** Session name: `<workspace>/.contextkit/sessions/<sessionId>.jsonl`. Default `'main'`. */
  sessionId?: string
  /** A large context file to describe to the model (absolute or workspace-relative). */
  contextFile?: string
  /** Workspace-relative files to preload into the user turn. Default none. */
  preloadFiles?: readonly string[]
  /** Identity text, the first stable system section. Default {@link DEFAULT_IDENTITY}. */
  system?: string
  /** `'xml'` (transcript format, native tools; default) or `'native'` (plain messages). */
  formatter?: FormatterChoice
  /** `max_tokens` of each call, capped at the model's output limit. Default `1024`. */
  maxTokens?: number
  /** Model calls per turn (the `maxTurns` stop condition). Default `4`. */
  maxModelCalls?: number
  /** Token budget for system + user sections. Default: context window − reply − history. */
  budgetTokens?: number
  /** Where else to record the trace (it always goes to a JSONL file and a memory trace). */
  trace?: Trace
  /** Clock for the resumption state. Default `Date.now`. */
  now?: () => number
  signal?: AbortSignal
}

/** What one turn did. */
export interface EmbeddedTurnResult {
  /** The final reply as saved (ephemeral parts stripped). */
  reply: AssistantMessage
  /** Messages appended to the session file this turn (the user's, then the run's). */
  saved: Message[]
  /** Every request sent, as SDK stream params. */
  requests: AnthropicStreamParams[]
  /** Every event of this turn. */
  trace: MemoryTrace
  /** The agent loop's result. */
  result: AgentResult
  sessionPath: string
  tracePath: string
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

function middlewareFor(options: EmbeddedTurnOptions, workspace: string): ContextMiddleware[] {
  const list: ContextMiddleware[] = [
    preload({ references: options.preloadFiles ?? [] }),
    resumption(options.now ? { now: options.now } : {}),
  ]
  if (options.contextFile !== undefined) {
    const file = isAbsolute(options.contextFile)
      ? options.contextFile
      : join(workspace, options.contextFile)
    list.push(contextMetadata({ file }))
  }
  list.push(prefill())
  return list
}

/** A provider that records every request as the SDK params it becomes. */
function recording(inner: ModelProvider, requests: AnthropicStreamParams[]): ModelProvider {
  return {
    name: inner.name,
    stream(request, options) {
      requests.push(toStreamParams(request))
      return inner.stream(request, options)
    },
  }
}

/**
 * Run one user turn the way OpenClaw's `attempt.ts` does, with `runAgent` doing the ARCHITECTURE
 * turn table: load the JSONL session (1); prepare bootstrap files, resumption, the context-file
 * hint and the prefill with the middleware (2–4, 6); fit the sections to the budget (5); render,
 * stream, parse and run `read_file` until the model stops (7–9, the prefill middleware's `recover`
 * handling the no-prefill 400); finalize every reply (10) and append each step to the session
 * (11). Every step is recorded in a JSONL trace in the workspace and in the returned memory trace.
 * A run that ends in an error is rethrown (its typed `ProviderError` or other error) after the
 * loop finalized it; nothing of a failed step is saved.
 */
export async function runEmbeddedTurn(options: EmbeddedTurnOptions): Promise<EmbeddedTurnResult> {
  const workspace = resolve(options.workspace)
  const client = clientOf(options)
  const sessionId = options.sessionId ?? 'main'
  const store = runnerSessionStore(workspace)
  const tracePath = join(workspace, '.contextkit', 'traces', `${sessionId}.jsonl`)
  const memory = memoryTrace()
  const trace = teeTrace(memory, jsonlTrace(tracePath), ...(options.trace ? [options.trace] : []))
  const requests: AnthropicStreamParams[] = []
  const user = textMessage('user', options.userText)
  const run = runAgent({
    provider: recording(anthropicProvider({ client }), requests),
    model: options.model,
    system: [
      { id: 'identity', text: options.system ?? DEFAULT_IDENTITY, priority: 100, cache: 'stable' },
    ],
    messages: [user],
    tools: [readFileTool(workspace)],
    middleware: middlewareFor(options, workspace),
    formatter:
      options.formatter === 'native'
        ? new NativeFormatter()
        : new AnthropicXmlFormatter({ toolMode: 'native' }),
    stopWhen: maxTurns(options.maxModelCalls ?? 4),
    maxTokens: options.maxTokens ?? 1024,
    session: { store, id: sessionId },
    workspace,
    trace,
    runId: `${sessionId}-${randomUUID().slice(0, 8)}`,
    ...(options.budgetTokens === undefined ? {} : { budgetTokens: options.budgetTokens }),
    ...(options.signal ? { signal: options.signal } : {}),
  })
  const result = await run.result
  if (result.stopReason === 'error' && result.error) throw result.error
  const replies = result.messages.filter((m): m is AssistantMessage => m.role === 'assistant')
  const reply = replies[replies.length - 1]
  if (!reply) {
    throw (
      result.error ?? new AgentAbortedError(`the run ended without a reply (${result.stopReason})`)
    )
  }
  return {
    reply,
    saved: [user, ...result.messages],
    requests,
    trace: memory,
    result,
    sessionPath: store.pathOf(sessionId),
    tracePath,
    recovered: memory.byStage(AGENT_TRACE_STAGES.recovered).length > 0,
  }
}
