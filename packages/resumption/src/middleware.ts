import { join } from 'node:path'
import {
  type AssistantMessage,
  ConfigurationError,
  type ContextMiddleware,
  createTokenCounter,
  type FinalizeInfo,
  getRunState,
  insertAfterStable,
  parseWith,
  type RunInfo,
  recordWarning,
  type Section,
  type StateStore,
  setRunState,
  type TokenCounter,
  type TurnContext,
  textOf,
} from '@contextkit/core'
import { createFileReadCache, type FileReadCache } from '@contextkit/core/node'
import type { Revisioned, StateFileOptions } from '@contextkit/store-files'
import { captureStreamTail, recordStreamTail } from './capture.js'
import { stripInjected } from './injected-text.js'
import { RESUMPTION_STATE_KEY, RESUMPTION_TRACE_STAGES } from './names.js'
import { ResumptionOptionsSchema } from './options.js'
import { emptySelfState, type SelfState } from './self-state.js'
import { type LoadedState, loadState, type StateAccess, updateState } from './state-access.js'
import {
  buildResumptionMessage,
  buildResumptionSection,
  resumptionContextFrom,
  type WakeUpRender,
} from './wake-up.js'

/** A value given directly or computed per run (e.g. the current git branch). */
export type Lazy<T> = T | (() => T | Promise<T>)

/** Options of {@link resumption}. */
export interface ResumptionOptions extends StateFileOptions {
  /**
   * Where the state is kept: any core `StateStore` of self-states, e.g. store-files'
   * `fileStateStore({ path, format: selfStateFormat })` or `postgresStateStore(db)` from
   * `@contextkit/store-postgres` for workers that share it.
   * Default: the state file at `path` (the file options here apply to it).
   */
  store?: StateStore<SelfState>
  /** Key of this agent's state in `store`. Default `default`. */
  agentId?: string
  /**
   * The state file, when no `store` is given. Default `<run.workspace>/.contextkit/self-state.json`;
   * without a workspace either, the middleware records a warning and does nothing.
   */
  path?: string
  /**
   * `system` (default): a `volatile` system section placed right after the last `stable` one
   * (core `insertAfterStable`), so the cached prompt prefix survives. `message`: a user message placed before the history (the
   * seed's option B).
   */
  placement?: 'system' | 'message'
  /**
   * Where the system section goes (`placement: 'system'`). `'after-stable'` (default): right
   * after the last `stable` section, marked `volatile`, so the cached prefix survives a new tail.
   * `'first'`: before every other section, as the design this package comes from does (the
   * agent reads its momentum before its identity); it is then marked `stable`, since a loop
   * keeps stable sections ahead of volatile ones, and the cached prefix starts with it: every
   * new tail is a cache miss for the whole system prompt (the README measures it).
   */
  position?: 'after-stable' | 'first'
  /** Writes the wake-up text. Default `renderWakeUp` (see {@link WakeUpRender}). */
  render?: WakeUpRender
  /**
   * Capture the final reply's thinking too: when the model thinks, its reasoning and its text
   * are taken in order and the tail is cut from their end, so a reply stopped mid-thought keeps
   * the thought. Default `true`.
   */
  captureThinking?: boolean
  /** Cap for the whole injected block, in tokens. Default `300`. */
  budgetTokens?: number
  /** Size of the tail captured from the final reply, in tokens. Default `100`. */
  tailTokens?: number
  /** Anchors injected, most recent ones. Default `5`. */
  maxAnchors?: number
  /** A tail older than this is not injected (anchors still are). Default `86400000` (24 h). */
  maxAgeMs?: number
  /** Current working directory, recorded with the tail; a change makes the tail stale. */
  cwd?: Lazy<string | undefined>
  /** Current git branch, recorded with the tail; a change makes the tail stale. */
  branch?: Lazy<string | undefined>
  /** Token counter. Default: `createTokenCounter({ model: turn.model })`. */
  counter?: TokenCounter
  /** Id of the system section. Default `resumption`. */
  sectionId?: string
  /** Priority of the system section for budget fitting. Default `50`. */
  priority?: number
  /** Capture the tail from the final reply and save it in `finalize`. Default `true`. */
  capture?: boolean
}

async function resolveLazy<T>(value: Lazy<T> | undefined): Promise<T | undefined> {
  return typeof value === 'function' ? await (value as () => T | Promise<T>)() : value
}

function statePath(options: ResumptionOptions, run: RunInfo): string {
  if (options.path) return options.path
  if (run.workspace) return join(run.workspace, '.contextkit', 'self-state.json')
  throw new ConfigurationError('resumption needs `path` or a run workspace', {
    recoverable: true,
  })
}

/** The state file's own options out of the middleware's (the file store refuses any other key). */
function stateFileOptions(options: ResumptionOptions): StateFileOptions {
  const { now, backupPath, lockPath, lockTimeoutMs, staleLockMs, maxBytes, root } = options
  return Object.fromEntries(
    Object.entries({
      now,
      backupPath,
      lockPath,
      lockTimeoutMs,
      staleLockMs,
      maxBytes,
      root,
    }).filter(([, v]) => v !== undefined),
  ) as StateFileOptions
}

function stateAccess(
  options: ResumptionOptions,
  run: RunInfo,
  source: string,
  cache: FileReadCache<Revisioned<SelfState>>,
): StateAccess {
  return {
    cache,
    store: options.store,
    agentId: options.agentId ?? 'default',
    path: () => statePath(options, run),
    // the default path lives in the workspace: its writes are confined to it
    fileOptions:
      options.path || !run.workspace
        ? stateFileOptions(options)
        : { ...stateFileOptions(options), root: run.workspace },
    warn: (problem) => recordWarning(run, source, problem),
  }
}

function injectedOf(run: RunInfo): string[] {
  const entry = getRunState(run, RESUMPTION_STATE_KEY) as { injected?: unknown } | undefined
  const list = entry?.injected
  return Array.isArray(list) ? list.filter((x): x is string => typeof x === 'string') : []
}

/** What one {@link resumption} middleware keeps across its runs. */
interface Resumer {
  options: ResumptionOptions
  placement: 'system' | 'message'
  /** The last read of the state file, reused while a stat shows the file unchanged. */
  cache: FileReadCache<Revisioned<SelfState>>
}

function counterFor(r: Resumer, turn: TurnContext): TokenCounter {
  return r.options.counter ?? createTokenCounter({ model: turn.model })
}

/** What to wake up to: the state's fresh tail and anchors, as far as they still apply. */
async function wakeUpContext(r: Resumer, run: RunInfo, loaded: LoadedState) {
  const { options } = r
  return resumptionContextFrom(loaded.state, {
    now: options.now ?? Date.now,
    maxAgeMs: options.maxAgeMs ?? 24 * 60 * 60 * 1000,
    maxAnchors: options.maxAnchors ?? 5,
    cwd: await resolveLazy(options.cwd),
    branch: await resolveLazy(options.branch),
    sessionId: run.sessionId,
  })
}

/** The `prepare` hook: load the state and inject the wake-up block (a warning on failure). */
async function prepareTurn(r: Resumer, turn: TurnContext, run: RunInfo): Promise<TurnContext> {
  setRunState(run, RESUMPTION_STATE_KEY, undefined)
  try {
    const loaded = await loadState(stateAccess(r.options, run, 'resumption.prepare', r.cache))
    const resolved = await wakeUpContext(r, run, loaded)
    const counter = counterFor(r, turn)
    const wake = {
      counter,
      budgetTokens: r.options.budgetTokens ?? 300,
      ...(r.options.render ? { render: r.options.render } : {}),
    }
    const text = buildResumptionSection(resolved.context, wake)
    run.trace.record(text ? RESUMPTION_TRACE_STAGES.injected : RESUMPTION_TRACE_STAGES.skipped, {
      action: text ? 'inject' : 'skip',
      placement: r.placement,
      source: loaded.source,
      tokens: text ? counter.count(text) : 0,
      ...(resolved.tailDropped ? { tailDropped: resolved.tailDropped } : {}),
    })
    if (!text || !resolved.context) return turn
    return placeWakeUp(r, turn, run, text, resolved.context, wake)
  } catch (error) {
    recordWarning(run, 'resumption.prepare', error)
    return turn
  }
}

/** Put the wake-up block in the turn (a system section, or a first message), noting what went in. */
function placeWakeUp(
  r: Resumer,
  turn: TurnContext,
  run: RunInfo,
  text: string,
  ctx: NonNullable<Awaited<ReturnType<typeof wakeUpContext>>['context']>,
  wake: { counter: TokenCounter; budgetTokens: number; render?: WakeUpRender },
): TurnContext {
  // What was injected is noted in the run's state, so finalize never captures it back and
  // nothing is kept per run in the middleware.
  const injected = [
    text,
    ...(ctx.streamTail ? [ctx.streamTail] : []),
    ...ctx.anchors.map((a) => a.raw),
  ]
  setRunState(run, RESUMPTION_STATE_KEY, { injected })
  if (r.placement === 'message') {
    const message = buildResumptionMessage(ctx, wake)
    return message ? { ...turn, messages: [message, ...turn.messages] } : turn
  }
  const first = r.options.position === 'first'
  const section: Section = {
    id: r.options.sectionId ?? 'resumption',
    text,
    priority: r.options.priority ?? 50,
    cache: first ? 'stable' : 'volatile',
  }
  if (first) return { ...turn, system: [section, ...turn.system] }
  return { ...turn, system: insertAfterStable(turn.system, [section]) }
}

/** The reply's words in order: its text blocks, and its thinking blocks when `thinking`. */
function replyText(reply: AssistantMessage, thinking: boolean): string {
  const thought = (b: AssistantMessage['content'][number]) =>
    b.type === 'thinking' && b.thinking.trim() !== ''
  if (!thinking || !reply.content.some(thought)) return textOf(reply)
  // text blocks run together as `textOf` joins them; a thought is a paragraph of its own
  let out = ''
  let wasText = false
  for (const block of reply.content) {
    if (block.type === 'text') {
      out += wasText || out === '' ? block.text : `\n\n${block.text}`
      wasText = true
    } else if (thought(block) && block.type === 'thinking') {
      out += out === '' ? block.thinking : `\n\n${block.thinking}`
      wasText = false
    }
  }
  return out
}

/** The `finalize` hook: capture the final reply's tail and save it (a warning on failure). */
async function finalizeReply(
  r: Resumer,
  reply: AssistantMessage,
  turn: TurnContext,
  run: RunInfo,
  info: FinalizeInfo | undefined,
): Promise<AssistantMessage> {
  // only the last reply of the turn is the agent's last word; earlier ones led to tools
  if (info?.final === false || r.options.capture === false) return reply
  try {
    await captureTail(r, replyText(reply, r.options.captureThinking !== false), turn, run)
  } catch (error) {
    recordWarning(run, 'resumption.finalize', error)
  }
  return reply
}

/** Save the tail of `text` (less what resumption injected) by compare-and-set. */
async function captureTail(r: Resumer, text: string, turn: TurnContext, run: RunInfo) {
  const { options } = r
  const injected = injectedOf(run)
  const counter = counterFor(r, turn)
  const tokens = options.tailTokens ?? 100
  if (captureStreamTail(stripInjected(text, injected), { counter, tokens }) === '') {
    const data = { action: 'capture-skip', reason: 'no new text' }
    run.trace.record(RESUMPTION_TRACE_STAGES.captureSkipped, data)
    return
  }
  const sessionKey = run.sessionId ?? run.runId
  const cwd = await resolveLazy(options.cwd)
  const branch = await resolveLazy(options.branch)
  const clock = options.now ? { now: options.now } : {}
  const record = {
    sessionKey,
    injected,
    counter,
    tokens,
    ...clock,
    ...(cwd !== undefined ? { cwd } : {}),
    ...(branch !== undefined ? { branch } : {}),
  }
  const saved = await updateState(
    stateAccess(options, run, 'resumption.finalize', r.cache),
    (current) => recordStreamTail(current ?? emptySelfState(sessionKey, clock), text, record),
    options.now ?? Date.now,
  )
  run.trace.record(RESUMPTION_TRACE_STAGES.captured, {
    action: 'capture',
    tokens: saved.state.streamTail?.tokenCount ?? 0,
    revision: saved.revision,
    ...(saved.retried ? { retried: true } : {}),
  })
}

/**
 * Middleware that wakes the agent up where its last session stopped.
 *
 * `prepare` loads the state (the state file, or `options.store`) and injects the fresh tail and
 * the anchors (see {@link buildResumptionSection}); `finalize` captures the new tail from the
 * final reply of the turn (`info.final`; replies followed by tool results are left alone), leaving
 * out anything resumption injected, and saves it by compare-and-set on the
 * revision it read. When another worker saved in between, it re-reads and applies the tail on
 * top of that state once (trace `retried: true`), so neither write is lost; a second conflict is
 * a warning and nothing is overwritten. A missing, corrupt or locked state never fails the
 * turn: it becomes a `warning` trace event and the turn goes on unchanged. Every decision is
 * recorded in the trace ({@link RESUMPTION_TRACE_STAGES}). Throws a `ValidationError` for
 * invalid options.
 */
export function resumption(options: ResumptionOptions = {}): ContextMiddleware {
  parseWith(ResumptionOptionsSchema, options, 'resumption options')
  const r: Resumer = {
    options,
    placement: options.placement ?? 'system',
    cache: createFileReadCache({ maxEntries: 1 }),
  }
  return {
    name: 'resumption',
    prepare: (turn, run) => prepareTurn(r, turn, run),
    finalize: (reply, turn, run, info) => finalizeReply(r, reply, turn, run, info),
  }
}
