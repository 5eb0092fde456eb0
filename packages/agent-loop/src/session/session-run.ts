import {
  type Message,
  randomId,
  type SessionApprovalEntry,
  type SessionCompactionEntry,
  type SessionCustomEntry,
  type SessionEntry,
  type SessionStore,
  sessionMessages,
  type TokenCounter,
} from '@contextkit/core'
import { sessionHeader } from '@contextkit/core/store'
import type { LearnedWindow } from '../budget/context-window.js'
import { limitHistory } from '../budget/history.js'
import type { AgentWarning } from '../events/events.js'
import { applyCompaction } from './apply-compaction.js'
import { lastEntryId, sessionMessageEntries } from './entries.js'
import { type RunState, runStateOf } from './run-state.js'
import { CONTEXT_WINDOW_ENTRY, learnedWindows, windowEntry } from './window-entries.js'

/** An approval entry before it is placed in the log (id, parent and time are added on append). */
export type ApprovalDraft = Omit<SessionApprovalEntry, 'type' | 'id' | 'parentId' | 'ts'>

/** How much of a stored session is sent to the model. */
export interface HistoryLimit {
  /** Keep the last `turns` user turns. Default: no turn limit. */
  turns?: number
  /** Keep the newest turns that fit in this many tokens. Default: half the model's context window. */
  tokens?: number
}

/** The `session` option of `runAgent`. */
export interface SessionOptions {
  /** Any core `SessionStore` (`jsonlSessionStore(dir)` from `@contextkit/store-files`, `@contextkit/store-postgres`, …). */
  store: SessionStore
  /** The session id (1–200 characters of `[A-Za-z0-9._-]`). */
  id: string
  /** Limit of the loaded history. */
  history?: HistoryLimit
}

function isEmptyReply(message: Message): boolean {
  return message.role === 'assistant' && message.content.length === 0
}

/**
 * One run's view of a session: loads the log (its tail, with the store's `loadTail` when it has
 * one, else all of it: its messages, and where its last run stands),
 * then appends the run's messages write-ahead, each batch chained by `parentId`, with the header
 * first when the session is new. A batch is written whole or not at all.
 */
export class SessionRun {
  readonly options: SessionOptions
  #lastId: string | null = null
  #hasHeader = false
  #appended = 0
  #limit: { tokens: number; counter: TokenCounter }
  /** Entry ids of the messages loaded or appended by this run (for compaction entries). */
  readonly #ids = new WeakMap<Message, string>()
  /** The newest compaction's summary, standing in for the messages before its kept tail. */
  #summary: Message | undefined
  /** The windows servers stated, by model id (loaded and recorded), written again after each compaction. */
  readonly #windows = new Map<string, number>()

  private constructor(options: SessionOptions, limit: { tokens: number; counter: TokenCounter }) {
    this.options = options
    this.#limit = limit
  }

  /**
   * Load the session: its stored messages, its last run's state, the context windows it records,
   * and the load's warnings. `defaults.tokens` is the history limit's default (half of `model`'s
   * window; half of a smaller window the session records for `model` wins).
   */
  static async open(
    options: SessionOptions,
    defaults: { tokens: number; counter: TokenCounter; model?: string },
  ): Promise<{
    session: SessionRun
    /** The messages from the newest compaction's kept tail on (all of them when none). */
    messages: Message[]
    /** Message entries loaded (from the store's `loadTail` when it has one: the tail's). */
    stored: number
    state: RunState
    /** The context windows servers stated in earlier runs (`${'`'}${CONTEXT_WINDOW_ENTRY}${'`'}` entries). */
    windows: LearnedWindow[]
    warnings: AgentWarning[]
  }> {
    const session = new SessionRun(options, defaults)
    const { store, id } = options
    // the tail a resume needs when the store can load one (same history, same run state)
    const loaded = await (store.loadTail ? store.loadTail(id) : store.load(id))
    session.#hasHeader = loaded.entries.some((e) => e.type === 'session')
    session.#lastId = lastEntryId(loaded.entries)
    for (const e of loaded.entries) if (e.type === 'message') session.#ids.set(e.message, e.id)
    const compacted = applyCompaction(loaded.entries)
    session.#summary = compacted.summary
    const windows = learnedWindows(loaded.entries)
    for (const w of windows) {
      session.#windows.set(w.model, w.window)
      // the history limit's default is half the window: of the one a server stated, when smaller
      if (w.model === defaults.model)
        session.#limit = {
          ...defaults,
          tokens: Math.min(defaults.tokens, Math.floor(w.window / 2)),
        }
    }
    const warnings = [...loaded.warnings, ...compacted.warnings].map((w) => ({
      code: w.code,
      message: w.line === undefined ? w.message : `line ${w.line}: ${w.message}`,
      source: 'session',
    }))
    return {
      session,
      messages: compacted.messages,
      stored: sessionMessages(loaded.entries).length,
      state: runStateOf(loaded.entries),
      windows,
      warnings,
    }
  }

  /**
   * The history sent to the model: the compaction summary (when the session has one), then
   * `messages` after orphan repair and the history limit (which never drops the summary).
   */
  history(messages: readonly Message[]): Message[] {
    const limited = limitHistory(messages, {
      tokens: this.options.history?.tokens ?? this.#limit.tokens,
      ...(this.options.history?.turns === undefined ? {} : { turns: this.options.history.turns }),
      counter: this.#limit.counter,
    })
    const kept = limited.filter((m) => !isEmptyReply(m))
    return this.#summary === undefined ? kept : [this.#summary, ...kept]
  }

  /**
   * Record the context windows servers stated (one `custom` entry each, `customType`
   * {@link CONTEXT_WINDOW_ENTRY}), so the next run starts with them. They are written again after
   * every compaction entry, so a run that loads only the newest compaction's tail still finds them.
   */
  async recordWindows(windows: readonly LearnedWindow[], now: Date = new Date()): Promise<void> {
    if (windows.length === 0) return
    for (const w of windows) this.#windows.set(w.model, w.window)
    await this.#appendEntries(
      windows.map((w) => (parentId) => windowEntry(w, parentId, now)),
      now,
    )
  }

  /** Append entries made from their parent id, the header first when the session is new. */
  async #appendEntries(
    makers: readonly ((parentId: string | null) => SessionEntry)[],
    now: Date,
  ): Promise<void> {
    const entries: SessionEntry[] = this.#hasHeader ? [] : [sessionHeader(this.options.id, now)]
    let parentId = this.#lastId
    for (const make of makers) {
      const entry = make(parentId)
      entries.push(entry)
      parentId = entry.id
    }
    await this.options.store.append(this.options.id, entries)
    this.#hasHeader = true
    this.#lastId = parentId
  }

  /** Entries appended by this run so far (the header not counted). */
  get appended(): number {
    return this.#appended
  }

  /**
   * Append one batch: the header first when the session is new, then the approval entries, then
   * the messages (one durable `append`; nothing when both are empty).
   */
  async append(
    messages: readonly Message[],
    approvals: readonly ApprovalDraft[] = [],
    now: Date = new Date(),
  ): Promise<void> {
    if (messages.length === 0 && approvals.length === 0) return
    const entries: SessionEntry[] = this.#hasHeader ? [] : [sessionHeader(this.options.id, now)]
    let parentId = this.#lastId
    for (const draft of approvals) {
      const entry: SessionApprovalEntry = {
        type: 'approval',
        id: randomId(),
        parentId,
        ts: now.toISOString(),
        ...draft,
      }
      entries.push(entry)
      parentId = entry.id
    }
    const added = sessionMessageEntries(messages, { parentId, now: () => now })
    entries.push(...added)
    await this.options.store.append(this.options.id, entries)
    this.#hasHeader = true
    this.#lastId = added[added.length - 1]?.id ?? parentId
    this.#appended += approvals.length + added.length
    for (const [i, m] of messages.entries()) this.#ids.set(m, (added[i] as SessionEntry).id)
  }

  /** The entry id of a message this run loaded or appended. */
  idOf(message: Message): string | undefined {
    return this.#ids.get(message)
  }

  /**
   * Append a `compaction` entry (summary + first kept entry id) after the last entry, then the
   * session's learned context windows again (see {@link SessionRun.recordWindows}).
   */
  async appendCompaction(
    entry: Omit<SessionCompactionEntry, 'type' | 'id' | 'parentId' | 'ts'>,
    now: Date = new Date(),
  ): Promise<void> {
    const compaction = (parentId: string | null): SessionCompactionEntry => ({
      type: 'compaction',
      id: randomId(),
      parentId,
      ts: now.toISOString(),
      ...entry,
    })
    const windows = [...this.#windows].map(
      ([model, window]) =>
        (parentId: string | null): SessionCustomEntry =>
          windowEntry({ model, window }, parentId, now),
    )
    await this.#appendEntries([compaction, ...windows], now)
  }
}
