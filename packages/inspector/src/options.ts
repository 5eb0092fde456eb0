import { randomBytes } from 'node:crypto'
import type { TraceReader } from '@contextkit/core'
import { parseWith, type SessionStore } from '@contextkit/core'
import * as z from 'zod'
import { POLL_MS, POLL_WITH_CHANGES_MS } from './sse.js'

/** A person's decision on one waiting tool call (agent-loop's `resume.approvals` value). */
export type InspectorApproval = { approve: true } | { approve: false; reason?: string }

/**
 * Finish a paused run: the app's own way (the inspector has no tools of its own). Called with the
 * session id and the decisions by tool call id; the inspector does not wait for the run to end
 * before answering the page, and follows it through the session and its trace.
 */
export type InspectorResume = (
  sessionId: string,
  approvals: Record<string, InspectorApproval>,
) => unknown

/**
 * A change feed: the inspector calls it once, when it starts, with `onChange`, and keeps the
 * function it returns to unsubscribe when it closes. Call `onChange(sessionId)` whenever a
 * session may have changed (a worker's step ended: `@contextkit/worker`'s `listenProgress`), or
 * `onChange()` when you cannot say which: the live streams of that session and the session list
 * look at the store at once instead of at their next poll. Calls after the inspector closed are
 * ignored. A feed may miss a change (a lost connection); polling catches it later.
 */
export type InspectorChanges = (onChange: (sessionId?: string) => void) => () => void

/** Options of `startInspector` and `inspectorHandler`. */
export interface InspectorOptions {
  /** Where the sessions are: any core `SessionStore` (JSONL files, Postgres, your own). */
  sessions: SessionStore
  /**
   * Where the run traces are: a directory of JSONL traces, one `<session id>.jsonl` per session
   * (what core's `jsonlTrace` writes; the examples' runner writes them to
   * `<workspace>/.contextkit/traces/`), or any {@link @contextkit/core#TraceReader}. Default: none (the page shows
   * what the sessions hold: messages, tool calls, approvals, compactions and usage).
   */
  traces?: string | TraceReader
  /** The app's way to finish a paused run. Default: none (the page shows no Approve/Deny). */
  resume?: InspectorResume
  /**
   * Tells the page's live streams of changes as they happen (see {@link InspectorChanges}), e.g.
   * the workers' progress notices: `(onChange) => listener.subscribe((n) => onChange(n.sessionId))`.
   * Default: none (the streams poll the store).
   */
  changes?: InspectorChanges
  /**
   * Milliseconds between two looks of a live stream at the store (50 to 3,600,000). Default
   * `250`; `5000` with `changes` (the feed wakes the streams at once; polling then only catches
   * what it missed).
   */
  pollIntervalMs?: number
  /**
   * The address to listen on. Default `127.0.0.1`. Any other address is served only when given
   * here, and `log` gets a warning line about it.
   */
  host?: string
  /** The port; `0` picks a free one. Default `0`. */
  port?: number
  /**
   * The token every request must carry (16–200 characters of `[A-Za-z0-9_-]`). Default: 32
   * random bytes, base64url.
   */
  token?: string
  /** Where the inspector's own lines go (the warning for a non-loopback host). Default `console.warn`. */
  log?: (line: string) => void
}

const isFn = (v: unknown) => typeof v === 'function'
const StoreSchema = z.custom<SessionStore>(
  (v) =>
    typeof v === 'object' &&
    v !== null &&
    ['load', 'append', 'list', 'delete'].every((k) => isFn((v as Record<string, unknown>)[k])),
  'a SessionStore (load, append, list, delete)',
)
const ReaderSchema = z.custom<TraceReader>(
  (v) =>
    typeof v === 'object' &&
    v !== null &&
    ['end', 'readForward', 'readBackward'].every((k) => isFn((v as Record<string, unknown>)[k])),
  'a TraceReader (end, readForward, readBackward)',
)

/** The schema of {@link InspectorOptions}: strict, so a misspelt option is refused. */
export const InspectorOptionsSchema = z.strictObject({
  sessions: StoreSchema,
  traces: z.union([z.string().min(1), ReaderSchema]).optional(),
  resume: z.custom<InspectorResume>(isFn, 'a function').optional(),
  changes: z.custom<InspectorChanges>(isFn, 'a function (onChange) => unsubscribe').optional(),
  pollIntervalMs: z.number().int().min(50).max(3_600_000).optional(),
  host: z.string().min(1).optional(),
  port: z.number().int().min(0).max(65_535).optional(),
  token: z
    .string()
    .regex(/^[A-Za-z0-9_-]{16,200}$/, '16-200 characters of [A-Za-z0-9_-]')
    .optional(),
  log: z.custom<(line: string) => void>(isFn, 'a function').optional(),
})

/** Options with their defaults. */
export interface ResolvedOptions {
  sessions: SessionStore
  traces: string | TraceReader | undefined
  resume: InspectorResume | undefined
  changes: InspectorChanges | undefined
  pollIntervalMs: number
  host: string
  port: number
  token: string
  log: (line: string) => void
}

/** Check `options` (a `ValidationError` naming the option) and fill in the defaults. */
export function resolveOptions(options: unknown, fn: string): ResolvedOptions {
  const o = parseWith(InspectorOptionsSchema, options, `${fn} options`)
  return {
    sessions: o.sessions,
    traces: o.traces,
    resume: o.resume,
    changes: o.changes,
    pollIntervalMs: o.pollIntervalMs ?? (o.changes ? POLL_WITH_CHANGES_MS : POLL_MS),
    host: o.host ?? '127.0.0.1',
    port: o.port ?? 0,
    token: o.token ?? randomBytes(32).toString('base64url'),
    log: o.log ?? ((line) => console.warn(line)),
  }
}

/** Whether `host` names this machine's loopback interface. */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase()
  return h === 'localhost' || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h)
}
