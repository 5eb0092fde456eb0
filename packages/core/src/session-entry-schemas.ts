// The zod schemas of a session's entries (and of its id): what a store validates every entry with
// on append and load, and the source of the entry types. Exported from `@contextkit/core/schemas`
// only, so that the code that runs a session without checking its entries with zod (the loop, a
// store's contract) never loads zod; the types are free (`import type`).
import * as z from 'zod'
import { AssistantMessageSchema, MessageSchema } from './message-schemas.js'
import {
  SESSION_ID_DOTS_MESSAGE,
  SESSION_ID_PATTERN,
  SESSION_ID_PATTERN_MESSAGE,
} from './session-id.js'

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
