import { existsSync, statSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { basename, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import type Anthropic from '@anthropic-ai/sdk'
import { type AgentResult, type ModelProvider, maxSteps, runAgent } from '@contextkit/agent-loop'
import { anthropicProvider } from '@contextkit/agent-loop/anthropic'
import type { ContextMetadata } from '@contextkit/context-metadata'
import { contextMetadata } from '@contextkit/context-metadata/node'
import {
  ConfigurationError,
  type ContextMiddleware,
  type Message,
  type Trace,
  textMessage,
} from '@contextkit/core'
import { EXTRACT_PROMPT, RLM_SYSTEM_PROMPT } from './context-file-prompts.js'
import { createSandbox, type SandboxOptions } from './context-file-sandbox.js'
import {
  firstIterationNote,
  sandboxVars,
  sizeHintSection,
  subCaller,
} from './context-file-steps.js'
import { isEntryPoint } from './entry-point.js'
import { RUN_JS_TOOL_NAME, runJsTool } from './run-js-tool.js'

export {
  EXTRACT_PROMPT,
  FIRST_ITERATION_WITH_METADATA,
  FIRST_ITERATION_WITHOUT_METADATA,
  RLM_SYSTEM_PROMPT,
  SUB_CALL_SYSTEM_PROMPT,
} from './context-file-prompts.js'
export { RUN_JS_TOOL_NAME, runJsTool }

/** Dependencies and options of {@link main}. */
export interface ContextFileDeps {
  /** The model. Alternative: `client` (an Anthropic client: the real API or testkit's emulator). */
  provider?: ModelProvider
  client?: Anthropic
  /** Model id. Default `claude-sonnet-4-6`. */
  model?: string
  /** The large file (`--context-file`), read whole into `__vars.context`. One of this and `context`. */
  contextFile?: string
  /** The context itself (`--context "text"`): no file name, so the hint is the one-line form. */
  context?: string
  /** What the user asks about it. */
  question: string
  /** Describe the context to the model (context-metadata's hint and `contextMeta`). Default `true`. */
  metadata?: boolean
  /** Model calls at most (each usually runs one script). Default `8`. */
  maxIterations?: number
  /**
   * When the scripts end without `SUBMIT` (the iterations ran out), make one more call without
   * code that asks for the answer from what the scripts printed (seed 001's extract step).
   * Default `true`.
   */
  extract?: boolean
  /** `llm_query` sub-calls a run may make. Default `16`. */
  maxSubCalls?: number
  /** Limits of the sandbox. Defaults: 2 s per script, 64 MiB + 24 bytes per context character. */
  sandbox?: Omit<SandboxOptions, 'llmQuery'>
  /** Where the account goes, one line per script. Default: nowhere. */
  print?: (line: string) => void
  trace?: Trace
  signal?: AbortSignal
}

/** One iteration: the script the model wrote and what came back. */
export interface Iteration {
  code: string
  output: string
  isError: boolean
}

/** What {@link main} did. */
export interface ContextFileResult {
  /** The value the model passed to `SUBMIT`, else the extract step's text, if any. */
  answer: unknown
  submitted: boolean
  /** `true` when the answer comes from the extract step (no `SUBMIT`). */
  extracted: boolean
  iterations: Iteration[]
  /** The metadata given to the model (`undefined` with `metadata: false`). */
  metadata: ContextMetadata | undefined
  result: AgentResult
}

/** The context and the name it is shown under, from `deps`. */
async function loadContext(deps: ContextFileDeps): Promise<{ text: string; fileName?: string }> {
  if ((deps.contextFile === undefined) === (deps.context === undefined)) {
    throw new ConfigurationError('context-file main() needs one of `contextFile` and `context`')
  }
  if (deps.context !== undefined) return { text: deps.context }
  const file = resolve(deps.contextFile as string)
  return { text: await readFile(file, 'utf8'), fileName: basename(file) }
}

/**
 * The recursive-model (RLM) flow of seed 001 on `runAgent`: a large context (a file, or inline
 * text) goes into a QuickJS sandbox as `__vars.context`; context-metadata describes it in the
 * user turn and puts `contextMeta` in `turn.vars`, which a small middleware hands to the
 * sandbox; the model writes scripts (`run_js`), reads what they print, may ask a model about a
 * part of the data with `llm_query` (the metadata passed down), and calls `SUBMIT(answer)`,
 * which stops the loop. When the iterations run out without `SUBMIT`, one last call without
 * code extracts the answer. With the metadata the first script can go straight to work;
 * `metadata: false` shows the exploration turn it saves (the hint then says the size only).
 * Runaway scripts are stopped by the sandbox's time and memory limits and reported to the model
 * as error results.
 */
export async function main(deps: ContextFileDeps): Promise<ContextFileResult> {
  const provider =
    deps.provider ??
    (deps.client
      ? anthropicProvider({ client: deps.client })
      : (() => {
          throw new ConfigurationError('context-file main() needs a `provider` or a `client`')
        })())
  const model = deps.model ?? 'claude-sonnet-4-6'
  const { text: context, fileName } = await loadContext(deps)
  let metadata: ContextMetadata | undefined
  const llmQuery = subCaller({
    provider,
    model,
    parent: () => metadata,
    maxSubCalls: deps.maxSubCalls ?? 16,
    ...(deps.trace ? { trace: deps.trace } : {}),
    ...(deps.signal ? { signal: deps.signal } : {}),
  })
  const sandbox = await createSandbox(
    { query: deps.question, context },
    { ...deps.sandbox, llmQuery },
  )
  try {
    const hint = describeContext(context, fileName, deps.metadata ?? true)
    const tools = [runJsTool(sandbox)]
    const question = textMessage('user', deps.question)
    const common = {
      provider,
      model,
      system: RLM_SYSTEM_PROMPT,
      tools,
      maxTokens: 2048,
      ...(deps.trace ? { trace: deps.trace } : {}),
      ...(deps.signal ? { signal: deps.signal } : {}),
    }
    const run = runAgent({
      ...common,
      messages: [question],
      middleware: [
        hint,
        sandboxVars(sandbox, (meta) => {
          metadata = meta
        }),
        firstIterationNote(context.length),
      ],
      stopWhen: [maxSteps(deps.maxIterations ?? 8), () => sandbox.hasSubmitted],
    })
    const iterations = await collectIterations(run.events, deps.print ?? (() => {}))
    const result = await run.result
    if (result.stopReason === 'error' && result.error) throw result.error
    const base = { iterations, metadata, result }
    if (sandbox.hasSubmitted) {
      return { ...base, answer: sandbox.submitted, submitted: true, extracted: false }
    }
    if (deps.extract === false || result.stopReason !== 'max_steps') {
      return { ...base, answer: undefined, submitted: false, extracted: false }
    }
    const answer = await extractAnswer(common, [question, ...result.messages], hint)
    return { ...base, answer, submitted: false, extracted: answer !== undefined }
  } finally {
    await sandbox.dispose()
  }
}

/** The middleware that describes the context: context-metadata's hint, or the size alone. */
function describeContext(
  context: string,
  fileName: string | undefined,
  useMeta: boolean,
): ContextMiddleware {
  if (!useMeta) return sizeHintSection(context.length)
  return contextMetadata({
    content: context,
    ...(fileName === undefined ? {} : { fileName }),
    hint: { contextRef: '__vars.context' },
  })
}

/** The iterations of a run, from its events; one account line per script. */
async function collectIterations(
  events: AsyncIterable<import('@contextkit/agent-loop').AgentEvent>,
  print: (line: string) => void,
): Promise<Iteration[]> {
  const iterations: Iteration[] = []
  const pending = new Map<string, string>()
  for await (const event of events) {
    if (event.type === 'tool-call' && event.call.name === RUN_JS_TOOL_NAME) {
      pending.set(event.call.id, String(event.call.input.code ?? ''))
    } else if (event.type === 'tool-result') {
      const block = event.result.content[0]
      const output = block?.type === 'text' ? block.text : ''
      const code = pending.get(event.result.toolCallId) ?? ''
      iterations.push({ code, output, isError: event.result.isError })
      print(`iteration ${iterations.length}: ${event.result.isError ? 'stopped/failed' : 'ran'}`)
      for (const line of output.split('\n').slice(0, 6)) print(`  ${line}`)
    }
  }
  return iterations
}

/**
 * Seed 001's extract step: one call that may not run code (`toolChoice: 'none'`; the tool stays
 * defined because the history holds its calls), with the same description of the context, asking
 * for the answer from what the scripts printed. Its text, or `undefined` when empty.
 */
async function extractAnswer(
  common: Omit<Parameters<typeof runAgent>[0], 'messages'>,
  history: Message[],
  hint: ContextMiddleware,
): Promise<string | undefined> {
  const run = runAgent({
    ...common,
    messages: [...history, textMessage('user', EXTRACT_PROMPT)],
    middleware: [hint],
    toolChoice: 'none',
    stopWhen: [maxSteps(1)],
  })
  for await (const _ of run.events) {
    // drained: the answer is the result's text
  }
  const result = await run.result
  if (result.stopReason === 'error' && result.error) throw result.error
  const text = result.text.trim()
  return text === '' ? undefined : text
}

/**
 * What the context-file command line does: `--context-file FILE` or `--context TEXT` (one of
 * them), the question as the positional words. Returns the exit code: 0 with an answer
 * (submitted, or extracted when the scripts ran out), 1 without one, 2 for bad input.
 */
export async function runContextFileCli(
  argv: readonly string[],
  io: {
    log: (line: string) => void
    error: (line: string) => void
    env: Readonly<Record<string, string | undefined>>
  },
): Promise<number> {
  let values: Record<string, string | boolean | undefined>
  let positionals: string[]
  try {
    ;({ values, positionals } = parseArgs({
      args: [...argv],
      options: {
        'context-file': { type: 'string' },
        model: { type: 'string' },
        'max-iterations': { type: 'string' },
        'time-limit-ms': { type: 'string' },
        context: { type: 'string' },
        'no-metadata': { type: 'boolean' },
        'no-extract': { type: 'boolean' },
      },
      allowPositionals: true,
    }))
  } catch (error) {
    io.error(`context-file: ${(error as Error).message.split('\n')[0]}`)
    return 2
  }
  const contextFile = values['context-file']
  const inline = values.context
  const question = positionals.join(' ').trim()
  if ((typeof contextFile === 'string') === (typeof inline === 'string') || question === '') {
    io.error(
      'usage: context-file.ts (--context-file FILE | --context TEXT) [--model ID] [--max-iterations N] [--time-limit-ms MS] [--no-metadata] [--no-extract] "question"',
    )
    return 2
  }
  if (
    typeof contextFile === 'string' &&
    (!existsSync(contextFile) || !statSync(contextFile).isFile())
  ) {
    io.error(`context-file: --context-file ${contextFile}: no such file`)
    return 2
  }
  const number = (name: string): number | undefined => {
    const raw = values[name]
    if (raw === undefined) return undefined
    const n = Number(raw)
    if (!Number.isSafeInteger(n) || n < 1)
      throw new Error(`--${name} must be a positive integer, got ${String(raw)}`)
    return n
  }
  let maxIterations: number | undefined
  let timeLimitMs: number | undefined
  try {
    maxIterations = number('max-iterations')
    timeLimitMs = number('time-limit-ms')
  } catch (error) {
    io.error(`context-file: ${(error as Error).message}`)
    return 2
  }
  const { default: AnthropicClient } = await import('@anthropic-ai/sdk')
  const { startAnthropicEmulator } = await import('@contextkit/testkit')
  const { contextFileScript } = await import('./context-file-script.js')
  const key = io.env.ANTHROPIC_API_KEY
  const emulator = key ? undefined : await startAnthropicEmulator({ script: contextFileScript })
  if (emulator)
    io.log(`offline: a scripted model answers through the testkit emulator at ${emulator.url}`)
  try {
    const result = await main({
      client: new AnthropicClient(
        emulator ? { apiKey: 'offline', baseURL: emulator.url, maxRetries: 0 } : { apiKey: key },
      ),
      ...(typeof contextFile === 'string' ? { contextFile } : { context: inline as string }),
      question,
      ...(typeof values.model === 'string' ? { model: values.model } : {}),
      ...(maxIterations === undefined ? {} : { maxIterations }),
      ...(timeLimitMs === undefined ? {} : { sandbox: { timeLimitMs } }),
      ...(values['no-metadata'] ? { metadata: false } : {}),
      ...(values['no-extract'] ? { extract: false } : {}),
      print: io.log,
    })
    if (result.extracted) {
      io.log(
        `answer (extracted: no SUBMIT after ${result.iterations.length} script(s)): ${JSON.stringify(result.answer)}`,
      )
      return 0
    }
    if (!result.submitted) {
      io.error(
        `context-file: no answer: the model stopped (${result.result.stopReason}) after ${result.iterations.length} script(s) without calling SUBMIT`,
      )
      return 1
    }
    io.log(`answer: ${JSON.stringify(result.answer)}`)
    return 0
  } catch (error) {
    io.error(`context-file: the run failed: ${(error as Error).message}`)
    return 1
  } finally {
    await emulator?.close()
  }
}

if (isEntryPoint(import.meta.url)) {
  // tsx examples/src/context-file.ts --context-file feed.ndjson "How many unique authors?"
  // tsx examples/src/context-file.ts --context '{"a":1}' "How many records?"
  // Offline (no ANTHROPIC_API_KEY) a scripted model answers through the testkit emulator.
  process.exitCode = await runContextFileCli(process.argv.slice(2), {
    log: (line) => console.log(line),
    error: (line) => console.error(line),
    env: process.env,
  })
}
