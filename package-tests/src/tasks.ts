/**
 * Scheduling the installs and checks a test file starts in `beforeAll` and its tests await: a
 * limit on how many run at once, and promises whose rejection waits for the test that reads it.
 */

/** Keep a rejection for the test that awaits it, never unhandled meanwhile. */
export function held<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => {})
  return promise
}

/**
 * Run at most `limit` tasks at a time; tasks may be added later. A task added with `first` goes
 * before those waiting: a package's checks run as soon as it is installed, beside the installs
 * still to come, instead of all of them after the last install.
 */
export function limiter(limit: number) {
  let active = 0
  const queue: (() => void)[] = []
  return <T>(task: () => Promise<T>, first = false): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const start = () => {
        active++
        task()
          .then(resolve, reject)
          .finally(() => {
            active--
            queue.shift()?.()
          })
      }
      if (active < limit) start()
      else if (first) queue.unshift(start)
      else queue.push(start)
    })
}
