import { assertArray } from './errors.js'
import type { Message } from './message-schemas.js'
import type { SessionEntry, SessionHeaderEntry } from './session-entry-schemas.js'
import { assertSessionId } from './session-id.js'
import type { SessionLeaseAttempt, SessionLeaseRequest } from './session-lease.js'
import type { SessionEntryStream } from './session-stream.js'

export type {
  ApprovalStatus,
  SessionApprovalEntry,
  SessionCompactionEntry,
  SessionCustomEntry,
  SessionEntry,
  SessionHeaderEntry,
  SessionMessageEntry,
} from './session-entry-schemas.js'

/** Version written into every new session header. Readers accept this version and older. */
export const SESSION_FORMAT_VERSION = 1

/** Something a store skipped or repaired while loading (a torn last line, a bad entry). */
export interface SessionWarning {
  /** Stable machine-readable code, e.g. `session_torn_line`. */
  code: string
  /** What happened, for a person. */
  message: string
  /** 1-based line (or row) number, where the store has one. */
  line?: number
}

/** What {@link SessionStore.load} returns. */
export interface SessionLoadResult {
  /** Every readable entry, in append order (header first). Empty for an unknown id. */
  entries: SessionEntry[]
  /** What was skipped, and why. Loading never fails because one entry is bad. */
  warnings: SessionWarning[]
}

/**
 * Where conversations are kept: append-only, one ordered list of {@link SessionEntry} per id.
 * Implemented by agent-loop's `jsonlSessionStore` and by `@contextkit/store-postgres`; any store
 * must pass `sessionStoreConformance` from `@contextkit/core/testing`.
 *
 * - `load` of an unknown id resolves `{ entries: [], warnings: [] }`.
 * - `append` validates every entry first and writes all of a batch or none of it; concurrent
 *   appends to one id never interleave inside a batch and never lose one.
 * - Ids are checked with core's `assertSessionId` (a `ValidationError` otherwise).
 * - An entry whose JSON is larger than `SESSION_ENTRY_MAX_BYTES` is refused by `append` with a
 *   `SessionTooLargeError` (nothing written), so whatever was written can be read back.
 */
export interface SessionStore {
  /**
   * The full load: every entry of a session, in append order, and what was skipped or repaired
   * on the way. For tools that want the whole history (export, search, audits).
   */
  load(id: string): Promise<SessionLoadResult>
  /**
   * The load a resume needs (optional; `runAgent` uses it when present, `load` otherwise): the
   * header, then every entry from the earlier of the newest usable compaction entry's first kept
   * message and the last assistant reply on, in append order. A compaction entry naming no
   * message entry before it is passed over as agent-loop's `applyCompaction` does; with no usable
   * one, every entry. Only what is returned is validated, so a long compacted session loads at
   * the cost of its tail. `applyCompaction`, `runStateOf` and `lastEntryId` of the result equal
   * those of `load`'s, and its warnings are `load`'s for the entries returned.
   */
  loadTail?(id: string): Promise<SessionLoadResult>
  /**
   * The full history one entry at a time (optional; core's `streamSession` falls back to
   * `load`): what `load` returns, entries and warnings alike, read as it is iterated, so a
   * session of any length is read in memory bounded by its largest entry. An unknown id yields
   * nothing; an unsafe id is a `ValidationError` (thrown by the call or by the iteration).
   */
  stream?(id: string): SessionEntryStream
  /** Append entries to a session (all of them or none), creating it on first append. */
  append(id: string, entries: readonly SessionEntry[]): Promise<void>
  /** Ids of every stored session, sorted. */
  list(): Promise<string[]>
  /** Remove a session; `false` when there was none. */
  delete(id: string): Promise<boolean>
  /**
   * One attempt at the session's lease (optional; `runAgent` takes it before it loads and holds
   * it to the end when the store has it): see `SessionLeaseStore` in `session-lease.ts`.
   */
  acquireLease?(id: string, request: SessionLeaseRequest): Promise<SessionLeaseAttempt>
}

/** The header entry that opens a new session. */
export function sessionHeader(id: string, now: Date = new Date()): SessionHeaderEntry {
  assertSessionId(id, 'sessionHeader')
  return { type: 'session', version: SESSION_FORMAT_VERSION, id, createdAt: now.toISOString() }
}

/** The messages of a loaded session, in order (header, compaction, approval and custom entries skipped). */
export function sessionMessages(entries: readonly SessionEntry[]): Message[] {
  assertArray(entries, 'sessionMessages', 'entries')
  const out: Message[] = []
  for (const entry of entries) if (entry.type === 'message') out.push(entry.message)
  return out
}
