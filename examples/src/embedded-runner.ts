import { randomUUID } from 'node:crypto'
import { isAbsolute, join, resolve } from 'node:path'
import Anthropic from '@anthropic-ai/sdk'
import { contextMetadata } from '@contextkit/context-metadata/node'
import {
  type AssistantMessage,
  ConfigurationError,
  type ContextMiddleware,
  createRunInfo,
  createTokenCounter,
  createTurnContext,
  emptyUsage,
  getModelInfo,
  type MemoryTrace,
  type Message,
  type ModelInfo,
  memoryTrace,
  runFinalize,
  runPrepare,
  type Trace,
  textMessage,
} from '@contextkit/core'
import { jsonlTrace } from '@contextkit/core/node'
import { prefill as prefillMiddleware } from '@contextkit/prefill/node'
import { preload } from '@contextkit/preload/node'
import { resumption } from '@contextkit/resumption/node'
import type { StreamParams } from './anthropic-request.js'
import { type FormatterChoice, runModelLoop } from './model-loop.js'
import { READ_FILE_TOOL } from './read-file-tool.js'
import { jsonlSessionStore } from './session-store.js'
import { teeTrace } from './tee-trace.js'
import { defaultSectionBudget, fitTurn } from './turn-budget.js'
import { RUNNER_STAGES } from './turn-steps.js'

/** Identity text used when `system` is not given. */
export const DEFAULT_IDENTITY =
  'You are a careful coding agent working in a project workspace. Use the read_file tool to look at files before you describe them.'

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
  /** Model calls per turn (tool loop bound). Default `4`. */
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
  /** Messages appended to the session file this turn. */
  saved: Message[]
  /** Every request sent, as SDK stream params. */
  requests: StreamParams[]
  /** Every event of this turn. */
  trace: MemoryTrace
  sessionPath: string
  tracePath: string
  /** Whether the no-prefill 400 was recovered from. */
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

function middlewareFor(options: EmbeddedTurnOptions, workspace: string) {
  const prefill = prefillMiddleware()
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
  list.push(prefill)
  return { list, prefill }
}

/**
 * Run one user turn the way OpenClaw's `attempt.ts` does, with the contextkit packages in the
 * ARCHITECTURE turn table's order: load the JSONL session (1); prepare bootstrap files, resumption,
 * the context-file hint and the prefill with core `runPrepare` (2–4, 6); fit the sections to the
 * budget (5); render, stream, parse and run `read_file` until the model stops (7–9, with the
 * prefill middleware's `recover` for the no-prefill 400); finalize (10) and append the new
 * messages to the session (11). Every step is recorded in a JSONL trace in the workspace and in
 * the returned memory trace. Provider errors are rethrown after finalize ran.
 */
export async function runEmbeddedTurn(options: EmbeddedTurnOptions): Promise<EmbeddedTurnResult> {
  const workspace = resolve(options.workspace)
  const client = clientOf(options)
  const model = typeof options.model === 'string' ? getModelInfo(options.model) : options.model
  const sessionId = options.sessionId ?? 'main'
  const sessionPath = join(workspace, '.contextkit', 'sessions', `${sessionId}.jsonl`)
  const tracePath = join(workspace, '.contextkit', 'traces', `${sessionId}.jsonl`)
  const memory = memoryTrace()
  const trace = teeTrace(memory, jsonlTrace(tracePath), ...(options.trace ? [options.trace] : []))
  const run = createRunInfo({
    runId: `${sessionId}-${randomUUID().slice(0, 8)}`,
    sessionId,
    workspace,
    trace,
    ...(options.signal ? { signal: options.signal } : {}),
  })
  const maxTokens = Math.min(options.maxTokens ?? 1024, model.maxOutput)

  // 1. the session
  const store = jsonlSessionStore(sessionPath)
  const history = await store.load()
  trace.record(RUNNER_STAGES.sessionLoaded, { path: sessionPath, messages: history.length })

  // 2–4, 6. middleware
  const user = textMessage('user', options.userText)
  const { list, prefill } = middlewareFor(options, workspace)
  const identity = options.system ?? DEFAULT_IDENTITY
  const prepared = await runPrepare(
    list,
    createTurnContext({
      model,
      system: [{ id: 'identity', text: identity, priority: 100, cache: 'stable' }],
      messages: [...history, user],
      tools: [READ_FILE_TOOL],
    }),
    run,
  )
  trace.record(RUNNER_STAGES.prepared, {
    system: prepared.system.map((s) => `${s.id}:${s.cache}`),
    userSections: prepared.userSections.map((s) => s.id),
    prefill: prepared.prefill,
  })

  // 5. the budget
  const counter = createTokenCounter({ model })
  const budget = options.budgetTokens ?? defaultSectionBudget(prepared, maxTokens, counter)
  const fitted = fitTurn(prepared, budget, counter)
  trace.record(RUNNER_STAGES.budget, {
    budget,
    tokens: fitted.fit.tokens,
    kept: fitted.fit.kept.map((s) => s.id),
    omissions: fitted.turn.omitted,
  })

  // 7–9. the model
  let loop: Awaited<ReturnType<typeof runModelLoop>>
  try {
    loop = await runModelLoop({
      client,
      turn: fitted.turn,
      run,
      workspace,
      formatter: options.formatter ?? 'xml',
      prefill,
      maxTokens,
      maxModelCalls: options.maxModelCalls ?? 4,
    })
  } catch (error) {
    // finalize also runs for failed turns, so nothing ephemeral survives; nothing is saved
    const failed: AssistantMessage = {
      role: 'assistant',
      content: [],
      stopReason: options.signal?.aborted ? 'aborted' : 'error',
      usage: emptyUsage(),
    }
    await runFinalize(list, failed, fitted.turn, run)
    trace.record(RUNNER_STAGES.failed, { stopReason: failed.stopReason })
    throw error
  }

  // 10. strip ephemeral parts: earlier replies through the prefill middleware alone (resumption
  // captures only the final reply), the final one through every middleware.
  const finals = new Map<Message, AssistantMessage>()
  const last = loop.replies[loop.replies.length - 1]!
  for (const reply of loop.replies.slice(0, -1)) {
    finals.set(reply, prefill.finalize(reply, loop.turn, run))
  }
  const reply = await runFinalize(list, last, loop.turn, run)
  finals.set(last, reply)
  trace.record(RUNNER_STAGES.finalized, { replies: loop.replies.length })

  // 11. save
  const saved = [user, ...loop.produced.map((m) => finals.get(m) ?? m)]
  await store.append(saved)
  trace.record(RUNNER_STAGES.saved, {
    path: sessionPath,
    appended: saved.map((m) => m.role),
    total: history.length + saved.length,
  })

  return {
    reply,
    saved,
    requests: loop.requests,
    trace: memory,
    sessionPath,
    tracePath,
    recovered: loop.recovered,
  }
}
