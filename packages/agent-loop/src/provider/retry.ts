import { assertObject, invalidArgument } from '@contextkit/core'
import type { ProviderEvent } from './contract.js'
import { ProviderError } from './errors.js'

/** How one attempt of a streamed call ended (its events were yielded on the way). */
export type AttemptOutcome =
  | { kind: 'finished' }
  | { kind: 'aborted' }
  /**
   * `retryAfterMs`: what the server asked for, when it did. `final`: never try this failure
   * again, whatever `error.retryable` says (e.g. an SDK that already retried it itself).
   */
  | { kind: 'failed'; error: ProviderError; retryAfterMs?: number; final?: boolean }

/** When and how often a failed attempt is tried again. */
export interface RetryPolicy {
  /** Attempts after the first. */
  maxRetries: number
  /** Delay before the first retry in ms, doubled per retry with ±25 % jitter. */
  baseDelayMs: number
  /** Longest delay in ms (a server's `retry-after` is capped by it too). */
  maxDelayMs: number
  /** Random source for the jitter, in [0, 1). */
  random: () => number
}

/** The `aborted` provider error. */
export function abortedProviderError(): ProviderError {
  return new ProviderError('The request was aborted', { errorType: 'aborted' })
}

/** Waits `ms`, or less when `signal` aborts. */
export function sleepUnlessAborted(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve()
    const done = (): void => {
      clearTimeout(timer)
      signal.removeEventListener('abort', done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    signal.addEventListener('abort', done, { once: true })
  })
}

/**
 * Runs `attempt` until it finishes, yielding its events; a retryable failure is tried again up to
 * `policy.maxRetries` times after a `retry` event (the loop then drops the partial reply, so no tool
 * of it runs), waiting the server's `retry-after` or an exponential backoff with jitter. Abort ends
 * the stream at once with an `aborted` error. Always ends with `finish` (from the attempt) or `error`.
 */
export async function* withRetries(
  attempt: () => AsyncGenerator<ProviderEvent, AttemptOutcome>,
  policy: RetryPolicy,
  signal: AbortSignal,
): AsyncGenerator<ProviderEvent> {
  checkRetryArguments(attempt, policy, signal)
  for (let n = 0; ; n++) {
    const end = yield* attempt()
    if (end.kind === 'finished') return
    if (end.kind === 'aborted' || signal.aborted) {
      yield { type: 'error', error: abortedProviderError() }
      return
    }
    if (end.final === true || !end.error.retryable || n >= policy.maxRetries) {
      yield { type: 'error', error: end.error }
      return
    }
    const backoff = policy.baseDelayMs * 2 ** n * (0.75 + policy.random() * 0.5)
    const delayMs = Math.round(Math.min(policy.maxDelayMs, end.retryAfterMs ?? backoff))
    yield { type: 'retry', attempt: n + 1, delayMs, error: end.error }
    await sleepUnlessAborted(delayMs, signal)
    if (signal.aborted) {
      yield { type: 'error', error: abortedProviderError() }
      return
    }
  }
}

/** `withRetries`' arguments, checked before the first attempt (a `ValidationError` when wrong). */
function checkRetryArguments(attempt: unknown, policy: unknown, signal: unknown): void {
  if (typeof attempt !== 'function') {
    invalidArgument('withRetries', 'attempt', 'a function starting one attempt', attempt)
  }
  assertObject(policy, 'withRetries', 'policy')
  const p = policy as Partial<Record<keyof RetryPolicy, unknown>>
  for (const key of ['maxRetries', 'baseDelayMs', 'maxDelayMs'] as const) {
    if (typeof p[key] !== 'number' || !(Number(p[key]) >= 0)) {
      invalidArgument('withRetries', `policy.${key}`, 'a number ≥ 0', p[key])
    }
  }
  if (typeof p.random !== 'function') {
    invalidArgument('withRetries', 'policy.random', 'a function returning [0, 1)', p.random)
  }
  if (!(signal instanceof AbortSignal)) {
    invalidArgument('withRetries', 'signal', 'an AbortSignal', signal)
  }
}
