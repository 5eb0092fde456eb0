// The child process of the export walk (see export-walk.ts): imports the given entry modules,
// calls every exported function and class with each bad argument list in a fixed order, and
// reports each call to the parent over IPC. Plain JavaScript so it starts without a loader; the
// parent watches for synchronous hangs (it kills this process) and restarts it after the call.
import process from 'node:process'

const input = JSON.parse(process.argv[2] ?? '{}')
const { ContextkitError } = await import(input.coreUrl)
const TIMEOUT_MS = input.timeoutMs

/** The bad values, each made fresh per argument (a callee may mutate what it is given). */
const VALUES = [
  ['null', () => null],
  ['undefined', () => undefined],
  ['42', () => 42],
  ['{}', () => ({})],
  ['Object.create(null)', () => Object.create(null)],
  ["''", () => ''],
]

/** Every (export, argument list) combination, in a deterministic order. */
async function combinations() {
  const out = []
  const seen = new Set()
  for (const module of input.modules) {
    const namespace = await import(module.url)
    for (const [name, fn] of Object.entries(namespace)) {
      if (typeof fn !== 'function' || seen.has(fn)) continue
      seen.add(fn)
      const id = `${module.label}#${name}`
      if (input.skip.includes(id)) continue
      const isClass = /^class\b/.test(Function.prototype.toString.call(fn))
      for (const [label, make] of VALUES) {
        for (let n = 1; n <= fn.length + 1; n++) {
          const call = `${isClass ? 'new ' : ''}${name}(${Array(n).fill(label).join(', ')})`
          out.push({ id, call, fn, isClass, n, make })
        }
      }
    }
  }
  return out
}

/** `undefined` when `error` is a typed contextkit error, else a one-line description of it. */
function untyped(error) {
  return ContextkitError.isInstance(error) ? undefined : describe(error)
}

function describe(error) {
  const name = error instanceof Error ? error.name : typeof error
  const message = error instanceof Error ? error.message : String(error)
  return `${name}: ${message.split('\n')[0].slice(0, 200)}`
}

function withTimeout(promise) {
  let timer
  const timeout = new Promise((resolve) => {
    timer = setTimeout(() => resolve({ hang: true }), TIMEOUT_MS)
  })
  const settled = Promise.resolve(promise).then(
    (value) => ({ value }),
    (error) => ({ error, rejected: true }),
  )
  return Promise.race([settled, timeout]).finally(() => clearTimeout(timer))
}

function isObject(value) {
  return (typeof value === 'object' && value !== null) || typeof value === 'function'
}

/** Close what a call returned (a server, a store), so the walk leaves nothing running. */
async function dispose(value) {
  if (!isObject(value)) return
  try {
    if (typeof value.close === 'function') await withTimeout(value.close())
    else if (typeof value[Symbol.asyncDispose] === 'function') {
      await withTimeout(value[Symbol.asyncDispose]())
    }
  } catch {
    // closing is best effort: the verdict is about the call
  }
}

/** The failure of one call, or `undefined` when it passed. */
async function runOne(c) {
  const args = Array.from({ length: c.n }, c.make)
  let value
  try {
    value = c.isClass ? new c.fn(...args) : c.fn(...args)
  } catch (error) {
    return untyped(error)
  }
  if (isObject(value) && typeof value.then === 'function') {
    const settled = await withTimeout(value)
    if (settled.hang) return `hang: the promise did not settle in ${TIMEOUT_MS} ms`
    if (settled.rejected) return untyped(settled.error)
    value = settled.value
  } else if (isObject(value) && typeof value[Symbol.asyncIterator] === 'function') {
    // A lazy async generator checks its arguments on the first `next()`.
    if (typeof value.next === 'function') {
      const first = await withTimeout(value.next())
      if (first.hang) return `hang: next() did not settle in ${TIMEOUT_MS} ms`
      if (first.rejected) return untyped(first.error)
      await withTimeout(value.return?.())
    }
  }
  await dispose(value)
  return undefined
}

let current = -1
const report = (error) => {
  process.send?.({
    type: 'stray',
    index: current,
    failure: `crashed the process after the call: ${describe(error)}`,
  })
}
process.on('uncaughtException', report)
process.on('unhandledRejection', report)

const all = await combinations()
for (let index = input.start; index < all.length; index++) {
  const c = all[index]
  current = index
  process.send?.({ type: 'start', index, id: c.id, call: c.call })
  const failure = await runOne(c)
  // Let timers the call set run now, so an error escaping it is blamed on it.
  await new Promise((resolve) => setTimeout(resolve, 0))
  process.send?.({ type: 'result', index, id: c.id, call: c.call, failure })
}
process.send?.({ type: 'done', total: all.length })
