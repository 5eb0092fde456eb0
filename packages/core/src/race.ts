import { invalidArgument } from './errors.js'
/** What {@link within} resolves to when the wait ran out. */
export const TIMED_OUT: unique symbol = Symbol('timed-out')

/** What {@link whenAborted}'s promise resolves to once the signal fires. */
export const ABORTED: unique symbol = Symbol('aborted')

/**
 * `promise`, or {@link TIMED_OUT} when it takes longer than `ms` (the timer is cleared either
 * way; `Infinity` never times out). A promise that loses the race is left to settle on its own:
 * attach a `catch` to it.
 */
export function within<T>(promise: Promise<T>, ms: number): Promise<T | typeof TIMED_OUT> {
  if (ms === Number.POSITIVE_INFINITY) return promise
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMED_OUT), ms)
  })
  return Promise.race([promise, late]).finally(() => clearTimeout(timer))
}

/**
 * A promise that resolves with {@link ABORTED} as soon as `signal` fires (at once when it already
 * has), and `dispose()`, which removes the listener: call it when the race is over, so a run of
 * many calls leaves no listener behind.
 */
export function whenAborted(signal: AbortSignal): {
  promise: Promise<typeof ABORTED>
  dispose(): void
} {
  if (typeof (signal as Partial<AbortSignal> | null)?.addEventListener !== 'function') {
    invalidArgument('whenAborted', 'signal', 'an AbortSignal', signal)
  }
  let dispose = (): void => {}
  const promise = new Promise<typeof ABORTED>((resolve) => {
    if (signal.aborted) return resolve(ABORTED)
    const listener = (): void => resolve(ABORTED)
    signal.addEventListener('abort', listener, { once: true })
    dispose = () => signal.removeEventListener('abort', listener)
  })
  return { promise, dispose }
}
