/**
 * Server-held conversations ("message threads", beta `message-threads-…`): a request with
 * `thread: { type: 'create' }` has its conversation, `system` and `tools` kept under the reply's
 * id; `thread: { type: 'continue', previous_message_id }` sends only the new messages, and the
 * emulator expands it to the whole conversation before validating and scripting. The SDK's tool
 * runner and `client.beta.messages.thread()` use this by default.
 */
import { badRequest, type RequestProblem } from './request-problem.js'

/** `anthropic-beta` values starting with this turn threads on (e.g. `message-threads-2026-08-12`). */
export const THREADS_BETA_PREFIX = 'message-threads-'

/** Fields a thread keeps from its first request; a `continue` must not send them. */
const CREATE_ONLY_FIELDS = ['system', 'tools'] as const

interface StoredTurn {
  model: string
  /** `system` and `tools` as the creating request sent them (absent keys stay absent). */
  createOnly: Record<string, unknown>
  /** The whole conversation as sent, ending with the stored reply. */
  messages: unknown[]
  state: 'open' | 'in-flight' | 'continued'
}

/** The thread part of one request, between {@link ThreadStore.begin} and commit/abort. */
export interface ThreadTurn {
  type: 'create' | 'continue'
  /** The reply a `continue` builds on. */
  previousMessageId: string | undefined
}

/** What {@link ThreadStore.begin} decided. */
export type ThreadBegin =
  | { ok: true; body: unknown; turn: ThreadTurn | undefined }
  | { ok: false; problem: RequestProblem }

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** The `anthropic-beta` values of a request (comma-separated, trimmed). */
export function betasOf(headers: Record<string, string>): string[] {
  return (headers['anthropic-beta'] ?? '')
    .split(',')
    .map((b) => b.trim())
    .filter((b) => b !== '')
}

function threadError(
  status: number,
  errorCode: string,
  message: string,
  type?: RequestProblem['type'],
): RequestProblem {
  return { status, message, details: { error_code: errorCode }, ...(type && { type }) }
}

/** Per-emulator thread state: every stored reply by message id. */
export class ThreadStore {
  readonly #turns = new Map<string, StoredTurn>()

  /**
   * Checks the request's `thread` field and returns the body to process: as sent without
   * `thread`, or, for a `continue`, with the stored conversation, `system` and `tools` put back.
   * A body without `thread` (or `thread: null`) passes through unchanged.
   */
  begin(body: unknown, headers: Record<string, string>): ThreadBegin {
    if (!isRecord(body) || body.thread === undefined || body.thread === null) {
      return { ok: true, body, turn: undefined }
    }
    const { thread, ...rest } = body
    if (!betasOf(headers).some((b) => b.startsWith(THREADS_BETA_PREFIX))) {
      return { ok: false, problem: badRequest('thread: Extra inputs are not permitted') }
    }
    if (!isRecord(thread)) {
      return {
        ok: false,
        problem: badRequest('thread: Input should be a valid dictionary or object'),
      }
    }
    if (thread.type === 'create') {
      return { ok: true, body: rest, turn: { type: 'create', previousMessageId: undefined } }
    }
    if (thread.type !== 'continue') {
      return {
        ok: false,
        problem: badRequest(
          `thread: Input tag '${String(thread.type)}' found using 'type' does not match any of the expected tags: 'continue', 'create'`,
        ),
      }
    }
    const previous = thread.previous_message_id
    if (typeof previous !== 'string' || previous === '') {
      return {
        ok: false,
        problem: badRequest('thread.continue.previous_message_id: Field required'),
      }
    }
    const problem = this.#continueProblem(rest, previous)
    if (problem) return { ok: false, problem }
    const stored = this.#turns.get(previous)!
    stored.state = 'in-flight'
    const messages = Array.isArray(rest.messages)
      ? [...stored.messages, ...rest.messages]
      : rest.messages
    return {
      ok: true,
      body: { ...rest, ...stored.createOnly, messages },
      turn: { type: 'continue', previousMessageId: previous },
    }
  }

  #continueProblem(rest: Record<string, unknown>, previous: string): RequestProblem | undefined {
    const stored = this.#turns.get(previous)
    if (!stored) {
      return threadError(
        404,
        'thread_not_found',
        `No thread state was found for previous_message_id ${previous}. Replay the full conversation with thread: {"type": "create"} to start a new thread.`,
      )
    }
    if (stored.state === 'continued') {
      return threadError(
        400,
        'thread_already_continued',
        `The response ${previous} has already been continued; each response can be continued only once. Continue from the thread's most recent response id.`,
      )
    }
    if (stored.state === 'in-flight') {
      return threadError(
        400,
        'thread_continue_in_flight',
        `Another request is still continuing from ${previous}. Wait for it to complete and continue from its response id.`,
      )
    }
    for (const field of CREATE_ONLY_FIELDS) {
      if (rest[field] !== undefined) {
        return badRequest(
          `${field}: cannot be sent when continuing a thread; the thread keeps the \`system\` and \`tools\` it was created with`,
        )
      }
    }
    if (rest.model !== stored.model) {
      return threadError(
        400,
        'thread_fingerprint_mismatch',
        `model: differs from the value stored with the thread (${stored.model})`,
      )
    }
    return undefined
  }

  /**
   * Keeps the conversation of `body` (as returned by {@link begin}) plus `reply` under the
   * reply's id; a continued reply can no longer be continued.
   */
  commit(
    turn: ThreadTurn,
    body: unknown,
    reply: { id: string; role: 'assistant'; content: unknown[] },
  ): void {
    if (!isRecord(body) || !Array.isArray(body.messages)) return
    const createOnly: Record<string, unknown> = {}
    for (const field of CREATE_ONLY_FIELDS) {
      if (body[field] !== undefined) createOnly[field] = body[field]
    }
    this.#turns.set(reply.id, {
      model: String(body.model),
      createOnly,
      messages: [...body.messages, { role: reply.role, content: reply.content }],
      state: 'open',
    })
    if (turn.previousMessageId !== undefined) {
      const previous = this.#turns.get(turn.previousMessageId)
      if (previous) previous.state = 'continued'
    }
  }

  /** The turn produced no stored reply (a refusal, a fault): its previous reply is free again. */
  abort(turn: ThreadTurn): void {
    if (turn.previousMessageId === undefined) return
    const previous = this.#turns.get(turn.previousMessageId)
    if (previous?.state === 'in-flight') previous.state = 'open'
  }

  /** How many replies are stored. */
  get size(): number {
    return this.#turns.size
  }
}
