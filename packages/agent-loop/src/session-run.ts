import {
  type Message,
  randomId,
  type SessionCompactionEntry,
  type SessionEntry,
  type SessionStore,
  sessionHeader,
  sessionMessages,
  type TokenCounter,
} from '@contextkit/core'
import type { AgentWarning } from './events.js'
import { limitHistory } from './history.js'
import { applyCompaction } from './session/apply-compaction.js'
import { lastEntryId, sessionMessageEntries } from './session/entries.js'

/** How much of a stored session is sent to the model. */
export interface HistoryLimit {
  /** Keep the last `turns` user turns. Default: no turn limit. */
  turns?: number
  /** Keep the newest turns that fit in this many tokens. Default: half the model's context window. */
  tokens?: number
}

/** The `session` option of `runAgent`. */
export interface SessionOptions {
  /** Any core `SessionStore` (`jsonlSessionStore(dir)`, `@contextkit/store-postgres`, …). */
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
 * One run's view of a session: loads the history (repaired and limited), then appends each
 * step's messages as one batch, chained by `parentId`, with the header first when the session is
 * new. A batch is never split, so a reader sees whole steps only.
 */
export class SessionRun {
  readonly options: SessionOptions
  #lastId: string | null = null
  #hasHeader = false
  #appended = 0
  /** Entry ids of the messages loaded or appended by this run (for compaction entries). */
  readonly #ids = new WeakMap<Message, string>()

  private constructor(options: SessionOptions) {
    this.options = options
  }

  /** Load the session: its messages after orphan repair and the history limit, and warnings. */
  static async open(
    options: SessionOptions,
    defaults: { tokens: number; counter: TokenCounter },
  ): Promise<{
    session: SessionRun
    history: Message[]
    stored: number
    warnings: AgentWarning[]
  }> {
    const session = new SessionRun(options)
    const loaded = await options.store.load(options.id)
    session.#hasHeader = loaded.entries.some((e) => e.type === 'session')
    session.#lastId = lastEntryId(loaded.entries)
    for (const e of loaded.entries) if (e.type === 'message') session.#ids.set(e.message, e.id)
    const compacted = applyCompaction(loaded.entries)
    const all = compacted.messages
    const limited = limitHistory(all, {
      tokens: options.history?.tokens ?? defaults.tokens,
      ...(options.history?.turns === undefined ? {} : { turns: options.history.turns }),
      counter: defaults.counter,
    })
    const warnings = [...loaded.warnings, ...compacted.warnings].map((w) => ({
      code: w.code,
      message: w.line === undefined ? w.message : `line ${w.line}: ${w.message}`,
      source: 'session',
    }))
    const history = limited.filter((m) => !isEmptyReply(m))
    return {
      session,
      history: compacted.summary === undefined ? history : [compacted.summary, ...history],
      stored: sessionMessages(loaded.entries).length,
      warnings,
    }
  }

  /** Entries appended by this run so far. */
  get appended(): number {
    return this.#appended
  }

  /** Append messages as one batch (the header first when the session is new). */
  async append(messages: readonly Message[], now: Date = new Date()): Promise<void> {
    if (messages.length === 0) return
    const entries: SessionEntry[] = this.#hasHeader ? [] : [sessionHeader(this.options.id, now)]
    const added = sessionMessageEntries(messages, { parentId: this.#lastId, now: () => now })
    entries.push(...added)
    await this.options.store.append(this.options.id, entries)
    this.#hasHeader = true
    this.#lastId = added[added.length - 1]?.id ?? this.#lastId
    this.#appended += messages.length
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
