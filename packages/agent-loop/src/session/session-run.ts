import {
  type Message,
  randomId,
  type SessionApprovalEntry,
  type SessionCompactionEntry,
  type SessionEntry,
  type SessionStore,
  sessionMessages,
  type TokenCounter,
} from '@contextkit/core'
import { sessionHeader } from '@contextkit/core/store'
import { limitHistory } from '../budget/history.js'
import type { AgentWarning } from '../events/events.js'
import { applyCompaction } from './apply-compaction.js'
import { lastEntryId, sessionMessageEntries } from './entries.js'
import { type RunState, runStateOf } from './run-state.js'

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
  readonly #limit: { tokens: number; counter: TokenCounter }
  /** Entry ids of the messages loaded or appended by this run (for compaction entries). */
  readonly #ids = new WeakMap<Message, string>()
  /** The newest compaction's summary, standing in for the messages before its kept tail. */
  #summary: Message | undefined

  private constructor(options: SessionOptions, limit: { tokens: number; counter: TokenCounter }) {
    this.options = options
    this.#limit = limit
  }

  /** Load the session: its stored messages, its last run's state, and the load's warnings. */
  static async open(
    options: SessionOptions,
    defaults: { tokens: number; counter: TokenCounter },
  ): Promise<{
    session: SessionRun
    /** The messages from the newest compaction's kept tail on (all of them when none). */
    messages: Message[]
    /** Message entries loaded (from the store's `loadTail` when it has one: the tail's). */
    stored: number
    state: RunState
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

  /** Append a `compaction` entry (summary + first kept entry id) after the last entry. */
  async appendCompaction(
    entry: Omit<SessionCompactionEntry, 'type' | 'id' | 'parentId' | 'ts'>,
    now: Date = new Date(),
  ): Promise<void> {
    const id = randomId()
    const compaction: SessionCompactionEntry = {
      type: 'compaction',
      id,
      parentId: this.#lastId,
      ts: now.toISOString(),
      ...entry,
    }
    await this.options.store.append(this.options.id, [compaction])
    this.#lastId = id
  }
}
