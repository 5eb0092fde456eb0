import * as z from 'zod'
import { assertArray } from './errors.js'
import { AssistantMessageSchema, type Message, MessageSchema } from './message-schemas.js'
import {
  assertSessionId,
  SESSION_ID_DOTS_MESSAGE,
  SESSION_ID_PATTERN,
  SESSION_ID_PATTERN_MESSAGE,
} from './session-id.js'
import type { SessionLeaseAttempt, SessionLeaseRequest } from './session-lease.js'
import type { SessionEntryStream } from './session-stream.js'

/** Version written into every new session header. Readers accept this version and older. */
export const SESSION_FORMAT_VERSION = 1

/**
 * A session id: 1–200 characters of `[A-Za-z0-9._-]`, starting with a letter or digit. So no
 * path separator, no `..`, nothing a file name, a SQL identifier or a URL would have to escape.
 * `isSessionId` and `assertSessionId` check the same rule without zod.
 */
export const SessionIdSchema = z
  .string()
  .regex(SESSION_ID_PATTERN, SESSION_ID_PATTERN_MESSAGE)
  .refine((id) => !id.includes('..'), SESSION_ID_DOTS_MESSAGE)

const EntryBase = {
  /** Unique id of the entry within its session. */
  id: z.string().min(1),
  /** The entry this one follows (`null` for the first after the header). */
  parentId: z.string().min(1).nullable(),
  /** When the entry was written (ISO 8601). */
  ts: z.string().min(1),
}

/** First line of every session: what it is and which format version wrote it. */
export const SessionHeaderEntrySchema = z.object({
  type: z.literal('session'),
  version: z.number().int().positive(),
  id: SessionIdSchema,
  createdAt: z.string().min(1),
})
/**
 * The first line of a session: its id and when it was created ({@link SessionHeaderEntrySchema}).
 */
export type SessionHeaderEntry = z.infer<typeof SessionHeaderEntrySchema>

/** One message of the conversation (assistant replies keep `stopReason` and `usage`). */
export const SessionMessageEntrySchema = z.object({
  type: z.literal('message'),
  ...EntryBase,
  message: z.union([AssistantMessageSchema, MessageSchema]),
})
/** A message of the conversation, kept in order ({@link SessionMessageEntrySchema}). */
export type SessionMessageEntry = z.infer<typeof SessionMessageEntrySchema>

/**
 * A summary standing in for the message entries before `firstKeptId`, written by compaction
 * (agent-loop's `runAgent({ compaction })`). The entries stay in the session; a loader sends the
 * summary, then the messages from `firstKeptId` on.
 */
export const SessionCompactionEntrySchema = z.object({
  type: z.literal('compaction'),
  ...EntryBase,
  summary: z.string(),
  /** The id of the first message entry kept as it is. */
  firstKeptId: z.string().min(1),
  /** The request's estimated input tokens before the compaction. */
  tokensBefore: z.number().int().nonnegative().optional(),
  /** The request's estimated input tokens after it. */
  tokensAfter: z.number().int().nonnegative().optional(),
  /** Why it was compacted: the estimate passed the threshold, or the provider refused the prompt. */
  reason: z.enum(['threshold', 'overflow']).optional(),
})
/**
 * A summary that stands for the entries before `firstKeptId` ({@link
 * SessionCompactionEntrySchema}).
 */
export type SessionCompactionEntry = z.infer<typeof SessionCompactionEntrySchema>

/** Where a tool call that needs a person's decision stands (see {@link SessionApprovalEntrySchema}). */
export const ApprovalStatusSchema = z.enum(['requested', 'approved', 'denied'])
/** `'requested'`, `'approved'` or `'denied'` ({@link ApprovalStatusSchema}). */
export type ApprovalStatus = z.infer<typeof ApprovalStatusSchema>

/**
 * A step in the approval of one tool call, written by durable runs. `requested`: the call was
 * not run, the run paused for a person (the call's `input` is kept so any process can show it).
 * `approved` / `denied`: the decision, written before the call runs (or its denial is sent), so
 * a crash after the decision never asks twice and never runs the call twice.
 */
export const SessionApprovalEntrySchema = z.object({
  type: z.literal('approval'),
  ...EntryBase,
  toolCallId: z.string().min(1),
  tool: z.string().min(1),
  status: ApprovalStatusSchema,
  /** The call's input (kept on `requested`). */
  input: z.record(z.string(), z.unknown()).optional(),
  /** Why a call was denied (sent to the model in the error result). */
  reason: z.string().optional(),
})
/**
 * A person's decision on a tool call, or the request for one ({@link SessionApprovalEntrySchema}).
 */
export type SessionApprovalEntry = z.infer<typeof SessionApprovalEntrySchema>

/**
 * Application data kept with the session. The loop ignores every `customType` but its own:
 * agent-loop's `agent_loop.context_window` (a context window a server stated for a model).
 */
export const SessionCustomEntrySchema = z.object({
  type: z.literal('custom'),
  ...EntryBase,
  customType: z.string().min(1),
  data: z.unknown(),
})
/** An application's own entry, kept and returned as written ({@link SessionCustomEntrySchema}). */
export type SessionCustomEntry = z.infer<typeof SessionCustomEntrySchema>

/** Any line of a session, discriminated on `type`. */
export const SessionEntrySchema = z.discriminatedUnion('type', [
  SessionHeaderEntrySchema,
  SessionMessageEntrySchema,
  SessionCompactionEntrySchema,
  SessionApprovalEntrySchema,
  SessionCustomEntrySchema,
])
/** Any entry of a session ({@link SessionEntrySchema}). */
export type SessionEntry = z.infer<typeof SessionEntrySchema>

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
 * - Ids are checked with {@link SessionIdSchema} (a `ValidationError` otherwise).
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
