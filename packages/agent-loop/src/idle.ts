/** What {@link within} resolves to when the wait ran out. */
export const IDLE: unique symbol = Symbol('idle')

/**
 * `promise`, or {@link IDLE} when it takes longer than `ms` (the timer is cleared either way).
 * A promise that loses the race is left to settle on its own: attach a `catch` to it.
 */
export function within<T>(promise: Promise<T>, ms: number): Promise<T | typeof IDLE> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const idle = new Promise<typeof IDLE>((resolve) => {
    timer = setTimeout(() => resolve(IDLE), ms)
  })
  return Promise.race([promise, idle]).finally(() => clearTimeout(timer))
}
