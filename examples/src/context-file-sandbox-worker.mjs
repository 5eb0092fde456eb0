// The QuickJS side of the context-file sandbox, in a worker thread (plain JavaScript, so it loads
// the same under node, tsx and vitest). The host (context-file-sandbox.ts) sends `run` and
// `setVar` messages and terminates this worker when a script runs past its deadline, however it
// got stuck (a long builtin call is not interrupted by QuickJS's own handler). `llm_query` asks the
// host for a sub-call: this thread posts the question and blocks on a SharedArrayBuffer
// (`Atomics.wait`) until the host writes the answer, so the script stays synchronous; the time
// spent waiting does not count against the script's deadline.
import { parentPort, workerData } from 'node:worker_threads'
import { newQuickJSWASMModuleFromVariant } from 'quickjs-emscripten-core'

/** @type {{ vars: Record<string, unknown>, memoryLimitBytes: number, maxStackBytes: number, maxOutputChars: number, maxReplyChars: number }} */
const config = workerData
const module = await newQuickJSWASMModuleFromVariant(import('@jitl/quickjs-wasmfile-release-sync'))
const runtime = module.newRuntime()
runtime.setMemoryLimit(config.memoryLimitBytes)
runtime.setMaxStackSize(config.maxStackBytes)
const vm = runtime.newContext()

/** @type {string[]} */
let printed = []
let printedChars = 0
/** @type {{ value: unknown } | undefined} */
let submitted
/** Milliseconds the current script spent waiting for `llm_query` answers (off its clock). */
let waited = 0

/** @param {unknown} value */
function describe(value) {
  if (typeof value === 'string') return value
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return String(value)
  }
}

/** @param {string} name @param {unknown} value: a string, or JSON data (parsed inside) */
function setVar(name, value) {
  const target = vm.getProp(vm.global, '__vars')
  const text = vm.newString(typeof value === 'string' ? value : JSON.stringify(value ?? null))
  if (typeof value === 'string') {
    vm.setProp(target, name, text)
  } else {
    const parse = vm.unwrapResult(vm.evalCode('JSON.parse'))
    const parsed = vm.unwrapResult(vm.callFunction(parse, vm.undefined, text))
    vm.setProp(target, name, parsed)
    parsed.dispose()
    parse.dispose()
  }
  text.dispose()
  target.dispose()
}

const holder = vm.newObject()
vm.setProp(vm.global, '__vars', holder)
holder.dispose()
const print = vm.newFunction('print', (...args) => {
  const line = args.map((a) => describe(vm.dump(a))).join(' ')
  if (printedChars < config.maxOutputChars) {
    printed.push(line.slice(0, config.maxOutputChars - printedChars))
  }
  printedChars += line.length + 1
})
vm.setProp(vm.global, 'print', print)
print.dispose()
const submit = vm.newFunction('SUBMIT', (answer) => {
  submitted = { value: answer === undefined ? undefined : vm.dump(answer) }
})
vm.setProp(vm.global, 'SUBMIT', submit)
submit.dispose()
const llmQuery = vm.newFunction('llm_query', (queryHandle, contextHandle) => {
  const query = vm.dump(queryHandle)
  const context = contextHandle === undefined ? undefined : vm.dump(contextHandle)
  if (typeof query !== 'string' || query.trim() === '') {
    throw new TypeError('llm_query(query, context?): query must be a non-empty string')
  }
  if (context !== undefined && typeof context !== 'string') {
    throw new TypeError('llm_query(query, context?): context must be a string when given')
  }
  // [state (0 pending, 1 answer, 2 error), byte length], then the UTF-8 text
  const shared = new SharedArrayBuffer(8 + 4 * config.maxReplyChars + 256)
  const head = new Int32Array(shared, 0, 2)
  const started = Date.now()
  parentPort?.postMessage({ type: 'llm_query', query, context, shared })
  Atomics.wait(head, 0, 0)
  waited += Date.now() - started
  const bytes = new Uint8Array(head[1])
  bytes.set(new Uint8Array(shared, 8, head[1]))
  const text = new TextDecoder().decode(bytes)
  if (head[0] !== 1) throw new Error(text)
  return vm.newString(text)
})
vm.setProp(vm.global, 'llm_query', llmQuery)
llmQuery.dispose()
for (const [name, value] of Object.entries(config.vars)) setVar(name, value)

/** @param {{ name?: unknown, message?: unknown } | undefined} error */
function stopOf(error) {
  const message = String(error?.message ?? '')
  if (error?.name === 'InternalError' && message === 'interrupted') return 'timeout'
  if (message === 'out of memory' || message.includes('stack')) return 'memory'
  return 'error'
}

/** @param {string} code @param {number} deadline */
function run(code, deadline) {
  printed = []
  printedChars = 0
  const before = submitted
  waited = 0
  runtime.setInterruptHandler(() => Date.now() - waited > deadline)
  let result
  try {
    result = vm.evalCode(code, 'iteration.js')
  } catch (error) {
    // the host stack ran out inside the interpreter: this instance is done
    return { ok: false, stop: 'memory', message: describe(error), printed, printedChars }
  } finally {
    runtime.removeInterruptHandler()
  }
  if (result.error) {
    const error = vm.dump(result.error)
    result.error.dispose()
    const stop = stopOf(error)
    const message = `${error?.name ?? 'Error'}: ${error?.message ?? describe(error)}`
    return { ok: false, stop, message, printed, printedChars }
  }
  const value = vm.dump(result.value)
  result.value.dispose()
  return {
    ok: true,
    printed,
    printedChars,
    value: value === undefined ? undefined : describe(value),
    submitted: submitted !== before && submitted !== undefined,
    answer: submitted?.value,
  }
}

parentPort?.on('message', (message) => {
  if (message.type === 'setVar') {
    setVar(message.name, message.value)
    parentPort?.postMessage({ type: 'ok', id: message.id })
  } else if (message.type === 'run') {
    parentPort?.postMessage({ type: 'ran', id: message.id, ...run(message.code, message.deadline) })
  }
})
parentPort?.postMessage({ type: 'ready' })
