import { join } from 'node:path'
import {
  ConfigurationError,
  type ContextMiddleware,
  createTokenCounter,
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
import { captureStreamTail, recordStreamTail } from './capture.js'
import { stripInjected } from './injected-text.js'
import { RESUMPTION_STATE_KEY, RESUMPTION_TRACE_STAGES } from './names.js'
import { ResumptionOptionsSchema } from './options.js'
import { emptySelfState, type SelfState } from './self-state.js'
import { loadState, type StateAccess, updateState } from './state-access.js'
import type { StateFileOptions } from './state-file.js'
import { buildResumptionMessage, buildResumptionSection, resumptionContextFrom } from './wake-up.js'

/** A value given directly or computed per run (e.g. the current git branch). */
export type Lazy<T> = T | (() => T | Promise<T>)

/** Options of {@link resumption}. */
export interface ResumptionOptions extends StateFileOptions {
  /**
   * Where the state is kept: any core `StateStore` of self-states, e.g. `fileStateStore(...)` or
   * `postgresStateStore(db)` from `@contextkit/store-postgres` for workers that share it.
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
  cache: FileReadCache<SelfState>,
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
  const placement = options.placement ?? 'system'
  // the last state file read, reused while a stat shows it unchanged (one per middleware)
  // the last read of the state file, reused while a stat shows the file unchanged
  const cache = createFileReadCache<SelfState>({ maxEntries: 1 })
  const counterFor = (turn: TurnContext) =>
    options.counter ?? createTokenCounter({ model: turn.model })

  return {
    name: 'resumption',

    async prepare(turn, run) {
      setRunState(run, RESUMPTION_STATE_KEY, undefined)
      try {
        const loaded = await loadState(stateAccess(options, run, 'resumption.prepare', cache))
        const resolved = resumptionContextFrom(loaded.state, {
          now: options.now ?? Date.now,
          maxAgeMs: options.maxAgeMs ?? 24 * 60 * 60 * 1000,
          maxAnchors: options.maxAnchors ?? 5,
          cwd: await resolveLazy(options.cwd),
          branch: await resolveLazy(options.branch),
          sessionId: run.sessionId,
        })
        const counter = counterFor(turn)
        const wake = { counter, budgetTokens: options.budgetTokens ?? 300 }
        const text = buildResumptionSection(resolved.context, wake)
        run.trace.record(
          text ? RESUMPTION_TRACE_STAGES.injected : RESUMPTION_TRACE_STAGES.skipped,
          {
            action: text ? 'inject' : 'skip',
            placement,
            source: loaded.source,
            tokens: text ? counter.count(text) : 0,
            ...(resolved.tailDropped ? { tailDropped: resolved.tailDropped } : {}),
          },
        )
        if (!text || !resolved.context) return turn
        const ctx = resolved.context
        // What was injected is noted in the run's state, so finalize never captures it back
        // and nothing is kept per run in this closure.
        const injected = [
          text,
          ...(ctx.streamTail ? [ctx.streamTail] : []),
          ...ctx.anchors.map((a) => a.raw),
        ]
        setRunState(run, RESUMPTION_STATE_KEY, { injected })
        if (placement === 'message') {
          const message = buildResumptionMessage(ctx, wake)
          return message ? { ...turn, messages: [message, ...turn.messages] } : turn
        }
        const section: Section = {
          id: options.sectionId ?? 'resumption',
          text,
          priority: options.priority ?? 50,
          cache: 'volatile',
        }
        return { ...turn, system: insertAfterStable(turn.system, [section]) }
      } catch (error) {
        recordWarning(run, 'resumption.prepare', error)
        return turn
      }
    },

    async finalize(reply, turn, run, info) {
      // only the last reply of the turn is the agent's last word; earlier ones led to tools
      if (info?.final === false) return reply
      const injected = injectedOf(run)
      if (options.capture === false) return reply
      try {
        const counter = counterFor(turn)
        const tokens = options.tailTokens ?? 100
        const text = textOf(reply)
        if (captureStreamTail(stripInjected(text, injected), { counter, tokens }) === '') {
          run.trace.record(RESUMPTION_TRACE_STAGES.captureSkipped, {
            action: 'capture-skip',
            reason: 'no new text',
          })
          return reply
        }
        const sessionKey = run.sessionId ?? run.runId
        const cwd = await resolveLazy(options.cwd)
        const branch = await resolveLazy(options.branch)
        const clock = options.now ? { now: options.now } : {}
        const saved = await updateState(
          stateAccess(options, run, 'resumption.finalize', cache),
          (current) =>
            recordStreamTail(current ?? emptySelfState(sessionKey, clock), text, {
              sessionKey,
              injected,
              counter,
              tokens,
              ...(options.now ? { now: options.now } : {}),
              ...(cwd !== undefined ? { cwd } : {}),
              ...(branch !== undefined ? { branch } : {}),
            }),
          options.now ?? Date.now,
        )
        run.trace.record(RESUMPTION_TRACE_STAGES.captured, {
          action: 'capture',
          tokens: saved.state.streamTail?.tokenCount ?? 0,
          revision: saved.revision,
          ...(saved.retried ? { retried: true } : {}),
        })
      } catch (error) {
        recordWarning(run, 'resumption.finalize', error)
      }
      return reply
    },
  }
}
