import { Worker } from 'node:worker_threads'
import { ContextkitError } from '@contextkit/core'

/** Why a script did not finish. */
export type SandboxStop = 'timeout' | 'memory' | 'error'

/** A script the sandbox stopped, or one that threw. `details.stop` says which. */
export class SandboxScriptError extends ContextkitError {
  static override readonly code: string = 'examples_sandbox_script'
  readonly stop: SandboxStop

  constructor(stop: SandboxStop, message: string) {
    super(message, { recoverable: true, details: { stop } })
    this.stop = stop
  }
}

/** Options of {@link createSandbox}. */
export interface SandboxOptions {
  /**
   * Longest a script may run (wall clock). Default: 2,000 ms plus 1 ms per 1,000 characters of
   * `__vars.context` (a 4 MB file gets 6 s, a 10 MB one 12 s): reading the data scales with it.
   */
  timeLimitMs?: number
  /** Heap the scripts may use. Default 64 MiB plus 24 bytes per character of the context. */
  memoryLimitBytes?: number
  /** Interpreter stack for recursion. Default 256 KiB (more overflows the worker's own stack). */
  maxStackBytes?: number
  /** `print` output kept per script; the rest is cut with a note. Default `20000` characters. */
  maxOutputChars?: number
  /** Extra wait past the time limit before the worker is terminated. Default `250` ms. */
  graceMs?: number
  /**
   * Answers `llm_query(query, context?)` calls of the scripts (a sub-call to a model). The
   * script waits for the answer (synchronously, off its time limit); a rejection becomes an
   * error thrown in the script. Without it, `llm_query` throws "not available".
   */
  llmQuery?: (query: string, context: string | undefined) => Promise<string>
  /** An `llm_query` answer is cut to this many characters. Default `20000`. */
  maxReplyChars?: number
}

/** What one script did. */
export interface SandboxRun {
  /** What it printed, then `=> value` when its completion value was not `undefined`. */
  output: string
  /** Whether it called `SUBMIT` (the answer is in {@link Sandbox.submitted}). */
  submitted: boolean
}

/** A JavaScript sandbox holding `__vars` across scripts, like a REPL. */
export interface Sandbox {
  /** Run one script; rejects with a {@link SandboxScriptError} when it throws or is stopped. */
  run(code: string): Promise<SandboxRun>
  /** Set `__vars[name]` (JSON data, or a string) for later scripts. */
  setVar(name: string, value: unknown): Promise<void>
  /** The value given to `SUBMIT(value)`, once a script called it. */
  readonly submitted: unknown
  readonly hasSubmitted: boolean
  dispose(): Promise<void>
}

interface Ran {
  type: 'ran'
  id: number
  ok: boolean
  stop?: SandboxStop
  message?: string
  printed: string[]
  printedChars: number
  value?: string
  submitted?: boolean
  answer?: unknown
}

const WORKER_URL = new URL('./context-file-sandbox-worker.mjs', import.meta.url)

/** The default time limit of a script over a context of `contextChars` characters. */
export function defaultTimeLimitMs(contextChars: number): number {
  return 2000 + Math.ceil(Math.max(0, contextChars) / 1000)
}

/**
 * A sandbox for the model's code: a QuickJS interpreter compiled to WebAssembly
 * (`quickjs-emscripten-core`) in a worker thread — not Node's `vm`, whose contexts share the
 * host's objects (`this.constructor.constructor('return process')()` reaches the real
 * `process`), whose `timeout` does not cover promise callbacks, and which has no memory limit at
 * all (an allocation loop takes the whole process down). Scripts see `__vars` (the context
 * string, its metadata, whatever {@link Sandbox.setVar} put there), `print(...)` and
 * `SUBMIT(answer)`, and nothing of the host: no `process`, `require`, file system or network.
 *
 * Limits: QuickJS's memory limit caps the heap, and its interrupt handler stops loops at the
 * deadline; because a single long builtin call is not interrupted, the host also terminates the
 * worker at the deadline plus `graceMs`. A stopped script is a {@link SandboxScriptError}
 * (`timeout` or `memory`); the next script gets a fresh worker with the same `__vars` (its own
 * globals are lost). Synchronous code only.
 */
export async function createSandbox(
  vars: Record<string, unknown>,
  options: SandboxOptions = {},
): Promise<Sandbox> {
  const contextChars = typeof vars.context === 'string' ? vars.context.length : 0
  const limits: SandboxLimits = {
    timeLimit: options.timeLimitMs ?? defaultTimeLimitMs(contextChars),
    grace: options.graceMs ?? 250,
    maxOutput: options.maxOutputChars ?? 20_000,
    memory: options.memoryLimitBytes ?? 64 * 1024 * 1024 + 24 * contextChars,
    maxStack: options.maxStackBytes ?? 256 * 1024,
    maxReply: options.maxReplyChars ?? 20_000,
    llmQuery: options.llmQuery,
  }
  const current: Record<string, unknown> = { ...vars }
  let submitted: { value: unknown } | undefined
  let worker: Worker | undefined
  const stopWorker = async () => {
    const w = worker
    worker = undefined
    await w?.terminate()
  }
  worker = await startWorker(current, limits)

  return {
    async run(code) {
      worker ??= await startWorker(current, limits)
      const deadline = Date.now() + limits.timeLimit
      let ran: Ran | 'timeout'
      try {
        ran = await runInWorker(worker, code, deadline, limits)
      } catch (error) {
        await stopWorker()
        throw new SandboxScriptError(
          'memory',
          `Script stopped: the sandbox failed (${String(error)}).`,
        )
      }
      if (ran === 'timeout' || (!ran.ok && ran.stop !== undefined && ran.stop !== 'error')) {
        await stopWorker()
      }
      const result = scriptResult(ran, limits)
      if (result.submitted) submitted = { value: (ran as Ran).answer }
      return result
    },
    async setVar(name, value) {
      current[name] = value
      if (worker) await askWorker(worker, { type: 'setVar', name, value })
    },
    get submitted() {
      return submitted?.value
    },
    get hasSubmitted() {
      return submitted !== undefined
    },
    dispose: stopWorker,
  }
}

/** A sandbox's limits, its options with their defaults. */
interface SandboxLimits {
  timeLimit: number
  grace: number
  maxOutput: number
  memory: number
  maxStack: number
  maxReply: number
  llmQuery: SandboxOptions['llmQuery']
}

/** A new worker holding `vars` under `limits`, once it says it is ready. */
async function startWorker(vars: Record<string, unknown>, limits: SandboxLimits): Promise<Worker> {
  const w = new Worker(WORKER_URL, {
    workerData: {
      vars,
      memoryLimitBytes: limits.memory,
      maxStackBytes: limits.maxStack,
      maxOutputChars: limits.maxOutput,
      maxReplyChars: limits.maxReply,
    },
  })
  await new Promise<void>((resolve, reject) => {
    w.once('message', () => resolve())
    w.once('error', reject)
  })
  return w
}

let messageIds = 0

/** What {@link exchange} is told while it listens. */
interface Listener {
  /** Each message of the worker. */
  onMessage(m: { id?: number; type?: string }): void
  /** Run once when the exchange settles (clear timers). */
  stop(): void
}

/**
 * Post `message` to the worker with a fresh `id` and listen until `settle` is called (what it is
 * given is the result); a worker error rejects. `listen` is called before the message goes.
 */
function exchange<T>(
  w: Worker,
  message: Record<string, unknown>,
  listen: (id: number, settle: (value: T) => void) => Listener,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const id = ++messageIds
    const cleanup = () => {
      listener.stop()
      w.off('message', onMessage)
      w.off('error', onError)
    }
    const listener = listen(id, (value) => {
      cleanup()
      resolve(value)
    })
    const onMessage = (m: { id?: number; type?: string }) => listener.onMessage(m)
    const onError = (error: Error) => {
      cleanup()
      reject(error)
    }
    w.on('message', onMessage)
    w.on('error', onError)
    w.postMessage({ ...message, id })
  })
}

/** Send `message` to the worker; its answer, or `'timeout'` after `ms`. */
function askWorker<T>(
  w: Worker,
  message: Record<string, unknown>,
  ms?: number,
): Promise<T | 'timeout'> {
  return exchange<T | 'timeout'>(w, message, (id, settle) => {
    const timer = ms === undefined ? undefined : setTimeout(() => settle('timeout'), ms)
    return {
      onMessage: (m) => {
        if (m.id === id) settle(m as T)
      },
      stop: () => clearTimeout(timer),
    }
  })
}

interface SubQuery {
  type: 'llm_query'
  query: string
  context: string | undefined
  shared: SharedArrayBuffer
}

/**
 * Run `code` in the worker: its `ran` message, or `'timeout'` once the script has used its time
 * limit plus the grace. The clock stops while an `llm_query` is answered (the worker blocks on
 * `Atomics.wait` meanwhile), so a slow model does not use up the script's time.
 */
function runInWorker(
  w: Worker,
  code: string,
  deadline: number,
  limits: SandboxLimits,
): Promise<Ran | 'timeout'> {
  return exchange<Ran | 'timeout'>(w, { type: 'run', code, deadline }, (id, settle) => {
    let left = limits.timeLimit + limits.grace
    let startedAt = Date.now()
    let timer: NodeJS.Timeout | undefined
    const arm = () => {
      startedAt = Date.now()
      timer = setTimeout(() => settle('timeout'), left)
    }
    arm()
    return {
      onMessage: (m) => {
        if (m.type === 'llm_query') {
          clearTimeout(timer)
          left -= Date.now() - startedAt
          void answer(m as SubQuery, limits).then(arm)
        } else if (m.id === id) settle(m as Ran)
      },
      stop: () => clearTimeout(timer),
    }
  })
}

/** Answer one `llm_query`: write the text (or the error) into its shared buffer, then wake it. */
async function answer(q: SubQuery, limits: SandboxLimits): Promise<void> {
  let ok = true
  let text: string
  try {
    if (!limits.llmQuery) throw new Error('llm_query is not available in this sandbox')
    text = String(await limits.llmQuery(q.query, q.context))
  } catch (error) {
    ok = false
    text = `llm_query failed: ${error instanceof Error ? error.message : String(error)}`
  }
  if (text.length > limits.maxReply) {
    text = `${text.slice(0, limits.maxReply)}\n[… answer cut at ${limits.maxReply} characters]`
  }
  const bytes = Buffer.from(text, 'utf8')
  const head = new Int32Array(q.shared, 0, 2)
  const room = q.shared.byteLength - 8
  const length = Math.min(bytes.length, room)
  new Uint8Array(q.shared, 8, length).set(bytes.subarray(0, length))
  head[1] = length
  Atomics.store(head, 0, ok ? 1 : 2)
  Atomics.notify(head, 0)
}

/** What a script's run gives the model, or the {@link SandboxScriptError} that stopped it. */
function scriptResult(
  ran: Ran | 'timeout',
  limits: SandboxLimits,
): { output: string; submitted: boolean } {
  const reset = ' The sandbox was reset (your globals are gone; __vars is kept).'
  if (ran === 'timeout') {
    throw new SandboxScriptError(
      'timeout',
      `Script stopped: it ran over the ${limits.timeLimit} ms time limit.${reset}`,
    )
  }
  const max = limits.maxOutput
  const cut = ran.printedChars > max ? `\n[… output cut at ${max} characters]` : ''
  if (!ran.ok) {
    const stop = ran.stop ?? 'error'
    const said =
      ran.printed.length > 0 ? `\nPrinted before it stopped:\n${ran.printed.join('\n')}${cut}` : ''
    if (stop === 'error') throw new SandboxScriptError('error', `${ran.message}${said}`)
    const why =
      stop === 'timeout'
        ? `it ran over the ${limits.timeLimit} ms time limit`
        : `it went over the ${Math.round(limits.memory / 1024 / 1024)} MB memory limit (${ran.message})`
    throw new SandboxScriptError(stop, `Script stopped: ${why}.${reset}${said}`)
  }
  const lines = [...ran.printed]
  if (ran.value !== undefined) lines.push(`=> ${ran.value}`)
  return { output: `${lines.join('\n')}${cut}`, submitted: ran.submitted === true }
}
