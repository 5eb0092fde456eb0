import { assertString, defaultTokenCounter, parseWith } from '@contextkit/core'
import * as z from 'zod'
import { StateVersionError } from './errors.js'
import { optionsOf } from './guards.js'

/** The version {@link SelfStateSchema} describes; files with an older version are migrated. */
export const SELF_STATE_VERSION = 1

const isoTime = z.iso.datetime({ offset: true })

/** Zod schema of {@link StreamTail}: the raw tail of the last session. */
export const StreamTailSchema = z.object({
  /** The verbatim last words of a session (already cut to a word or line boundary). */
  raw: z.string(),
  /** Session the tail was captured in. */
  sessionKey: z.string(),
  /** ISO time of capture. */
  capturedAt: isoTime,
  /** Size of `raw` according to the counter named by `counterId`. */
  tokenCount: z.number().int().nonnegative(),
  /** `TokenCounter.id` that measured `tokenCount`. */
  counterId: z.string(),
})
/** The raw tail of the last session's output. */
export type StreamTail = z.infer<typeof StreamTailSchema>

/** Zod schema of {@link Anchor}: one verbatim phrase worth carrying over. */
export const AnchorSchema = z.object({
  /** A verbatim phrase worth carrying over. */
  raw: z.string().min(1),
  /** What made it worth keeping (e.g. `insight`, `user-quote`, `decision`). */
  triggerType: z.string().min(1),
  /** ISO time of capture. */
  capturedAt: isoTime,
})
/** A verbatim anchor phrase. */
export type Anchor = z.infer<typeof AnchorSchema>

/** Zod schema of the current state file ({@link SelfState}); `migrateSelfState` reads older ones. */
export const SelfStateSchema = z.object({
  version: z.literal(SELF_STATE_VERSION),
  /** Incremented by every save; lets a writer detect that someone else saved in between. */
  revision: z.number().int().nonnegative(),
  /** Session that last wrote the state. */
  sessionId: z.string(),
  /** ISO time of the last save. */
  updatedAt: isoTime,
  streamTail: StreamTailSchema.optional(),
  /** Oldest first, most recent last. */
  verbatimAnchors: z.array(AnchorSchema),
  /** Working directory the tail was captured in; a different one makes the tail stale. */
  cwd: z.string().optional(),
  /** Git branch the tail was captured on; a different one makes the tail stale. */
  branch: z.string().optional(),
})
/** What one agent remembers of its last session, as stored in the state file. */
export type SelfState = z.infer<typeof SelfStateSchema>

/** Version 0: the seed's unversioned shape (no `version`, `tokenCount`, `counterId`, `revision`). */
const timeV0 = z.union([isoTime, z.number().finite().nonnegative()])
const StateV0Schema = z.object({
  streamTail: z
    .object({
      raw: z.string(),
      sessionKey: z.string().optional(),
      capturedAt: timeV0.optional(),
    })
    .nullish(),
  verbatimAnchors: z
    .array(
      z.object({
        raw: z.string().min(1),
        triggerType: z.string().min(1).optional(),
        capturedAt: timeV0.optional(),
      }),
    )
    .optional(),
  sessionId: z.string().optional(),
  updatedAt: timeV0.optional(),
  cwd: z.string().optional(),
  branch: z.string().optional(),
})

function toIso(value: string | number | undefined, fallback: string): string {
  if (value === undefined) return fallback
  return typeof value === 'number' ? new Date(value).toISOString() : value
}

function migrateV0(value: unknown): SelfState {
  const old = parseWith(StateV0Schema, value, 'self-state (version 0)')
  const epoch = new Date(0).toISOString()
  const updatedAt = toIso(old.updatedAt, toIso(old.streamTail?.capturedAt, epoch))
  const sessionId = old.sessionId ?? old.streamTail?.sessionKey ?? 'unknown'
  const state: SelfState = {
    version: SELF_STATE_VERSION,
    revision: 0,
    sessionId,
    updatedAt,
    verbatimAnchors: (old.verbatimAnchors ?? []).map((a) => ({
      raw: a.raw,
      triggerType: a.triggerType ?? 'unknown',
      capturedAt: toIso(a.capturedAt, updatedAt),
    })),
  }
  if (old.streamTail && old.streamTail.raw.length > 0) {
    state.streamTail = {
      raw: old.streamTail.raw,
      sessionKey: old.streamTail.sessionKey ?? sessionId,
      capturedAt: toIso(old.streamTail.capturedAt, updatedAt),
      tokenCount: defaultTokenCounter.count(old.streamTail.raw),
      counterId: defaultTokenCounter.id,
    }
  }
  if (old.cwd !== undefined) state.cwd = old.cwd
  if (old.branch !== undefined) state.branch = old.branch
  return state
}

/**
 * Turn any parsed state file content into a current {@link SelfState}: validates it, and
 * migrates older versions (an object without `version` is version 0, the seed's shape).
 *
 * @throws ValidationError when the value does not match its version's schema.
 * @throws StateVersionError when `version` is newer than {@link SELF_STATE_VERSION}.
 */
export function migrateSelfState(value: unknown): SelfState {
  const version =
    typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as { version?: unknown }).version
      : undefined
  if (version === undefined) return migrateV0(value)
  if (typeof version === 'number' && Number.isInteger(version) && version > SELF_STATE_VERSION) {
    throw new StateVersionError(
      `self-state version ${version} is newer than this package supports (${SELF_STATE_VERSION})`,
      { recoverable: true, details: { version, supported: SELF_STATE_VERSION } },
    )
  }
  return parseWith(SelfStateSchema, value, 'self-state')
}

/** Options of {@link emptySelfState}. */
export interface EmptySelfStateOptions {
  /** Clock. Default `Date.now`. */
  now?: () => number
  /** Working directory to record in the state. */
  cwd?: string
  /** Git branch to record in the state. */
  branch?: string
}

/** A state with no tail and no anchors, for `sessionId`. */
export function emptySelfState(sessionId: string, options: EmptySelfStateOptions = {}): SelfState {
  assertString(sessionId, 'emptySelfState', 'sessionId')
  options = optionsOf(options, 'emptySelfState')
  const now = options.now ?? Date.now
  const state: SelfState = {
    version: SELF_STATE_VERSION,
    revision: 0,
    sessionId,
    updatedAt: new Date(now()).toISOString(),
    verbatimAnchors: [],
  }
  if (options.cwd !== undefined) state.cwd = options.cwd
  if (options.branch !== undefined) state.branch = options.branch
  return state
}
