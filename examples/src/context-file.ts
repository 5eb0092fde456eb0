import { existsSync, statSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { basename, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import type Anthropic from '@anthropic-ai/sdk'
import { type AgentResult, type ModelProvider, maxSteps, runAgent } from '@contextkit/agent-loop'
import { anthropicProvider } from '@contextkit/agent-loop/anthropic'
import { CONTEXT_METADATA_VARS_KEY, type ContextMetadata } from '@contextkit/context-metadata'
import { contextMetadata } from '@contextkit/context-metadata/node'
import {
  ConfigurationError,
  type ContextMiddleware,
  type Trace,
  textMessage,
} from '@contextkit/core'
import { createSandbox, type Sandbox, type SandboxOptions } from './context-file-sandbox.js'
import { isEntryPoint } from './entry-point.js'
import { RUN_JS_TOOL_NAME, runJsTool } from './run-js-tool.js'

export { RUN_JS_TOOL_NAME, runJsTool }

/** The system prompt of the recursive (REPL) agent. */
export const RLM_SYSTEM_PROMPT = `You answer a question about data too large to read whole. The data is in \`__vars.context\` inside a JavaScript sandbox (QuickJS: plain synchronous JavaScript; no modules, no network, no file system).

Work in iterations: call the ${RUN_JS_TOOL_NAME} tool with a script and read what it printed with \`print(...)\`. Globals you define stay for the next script. When you know the answer, call \`SUBMIT(answer)\` in a script.

## Variable space
\`__vars.query\` holds the question and \`__vars.context\` the data (a string). When a context file was given, \`__vars.contextMeta\` holds its metadata (format, fields, lines, recordCount) and the user turn describes the file. Read the data with code; do not guess at it.`

/** The first-iteration note when the metadata is there: go straight to work. */
export const FIRST_ITERATION_WITH_METADATA =
  'You have not seen the full context yet. Use the description above and `__vars.contextMeta` for its shape, and start processing in your first script.'

/** The first-iteration note without metadata: look before you process. */
export const FIRST_ITERATION_WITHOUT_METADATA =
  'You have not seen the context yet. Explore its format with a first script (size, a peek at the start) before processing it.'

/** Dependencies and options of {@link main}. */
export interface ContextFileDeps {
  /** The model. Alternative: `client` (an Anthropic client: the real API or testkit's emulator). */
  provider?: ModelProvider
  client?: Anthropic
  /** Model id. Default `claude-sonnet-4-6`. */
  model?: string
  /** The large file (`--context-file`), read whole into `__vars.context`. */
  contextFile: string
  /** What the user asks about it. */
  question: string
  /** Describe the file to the model (context-metadata's hint and `contextMeta`). Default `true`. */
  metadata?: boolean
  /** Model calls at most (each usually runs one script). Default `8`. */
  maxIterations?: number
  /** Limits of the sandbox. Defaults: 2 s per script, 64 MiB + 24 bytes per context character. */
  sandbox?: SandboxOptions
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
  /** The value the model passed to `SUBMIT`, if it did. */
  answer: unknown
  submitted: boolean
  iterations: Iteration[]
  /** The metadata given to the model (`undefined` with `metadata: false`). */
  metadata: ContextMetadata | undefined
  result: AgentResult
}

/** Copy what the sandbox should see from `turn.vars` into it: the metadata. */
function sandboxVars(sandbox: Sandbox, seen: (meta: ContextMetadata) => void): ContextMiddleware {
  return {
    name: 'sandbox-vars',
    async prepare(turn) {
      const meta = turn.vars[CONTEXT_METADATA_VARS_KEY] as ContextMetadata | undefined
      if (meta) {
        seen(meta)
        await sandbox.setVar('contextMeta', {
          fileName: meta.fileName,
          format: meta.format,
          lines: meta.lines,
          fields: meta.fields,
          recordCount: meta.recordCount,
        })
      }
      return turn
    },
  }
}

/** The first-iteration note, from whether the metadata made it into the turn. */
function firstIterationNote(): ContextMiddleware {
  return {
    name: 'first-iteration-note',
    prepare(turn) {
      const has = turn.vars[CONTEXT_METADATA_VARS_KEY] !== undefined
      return {
        ...turn,
        userSections: [
          ...turn.userSections,
          {
            id: 'rlm:first-iteration',
            text: has ? FIRST_ITERATION_WITH_METADATA : FIRST_ITERATION_WITHOUT_METADATA,
            priority: 90,
            cache: 'volatile',
          },
        ],
      }
    },
  }
}

/**
 * The recursive-model (RLM) flow of seed 001 on `runAgent`: a large context file goes into a
 * QuickJS sandbox as `__vars.context`; context-metadata describes it in the user turn and puts
 * `contextMeta` in `turn.vars`, which a small middleware hands to the sandbox; the model writes
 * scripts (`run_js`), reads what they print and calls `SUBMIT(answer)`, which stops the loop.
 * With the metadata the first script can go straight to work; `metadata: false` shows the
 * exploration turn it saves. Runaway scripts are stopped by the sandbox's time and memory limits
 * and reported to the model as error results.
 */
export async function main(deps: ContextFileDeps): Promise<ContextFileResult> {
  const provider =
    deps.provider ??
    (deps.client
      ? anthropicProvider({ client: deps.client })
      : (() => {
          throw new ConfigurationError('context-file main() needs a `provider` or a `client`')
        })())
  const file = resolve(deps.contextFile)
  const context = await readFile(file, 'utf8')
  const sandbox = await createSandbox({ query: deps.question, context }, deps.sandbox)
  const print = deps.print ?? (() => {})
  let metadata: ContextMetadata | undefined
  try {
    const useMeta = deps.metadata ?? true
    const middleware: ContextMiddleware[] = [
      ...(useMeta
        ? [
            contextMetadata({
              content: context,
              fileName: basename(file),
              hint: { contextRef: '__vars.context' },
            }),
          ]
        : []),
      sandboxVars(sandbox, (meta) => {
        metadata = meta
      }),
      firstIterationNote(),
    ]
    const run = runAgent({
      provider,
      model: deps.model ?? 'claude-sonnet-4-6',
      system: RLM_SYSTEM_PROMPT,
      messages: [textMessage('user', deps.question)],
      tools: [runJsTool(sandbox)],
      middleware,
      stopWhen: [maxSteps(deps.maxIterations ?? 8), () => sandbox.hasSubmitted],
      maxTokens: 2048,
      ...(deps.trace ? { trace: deps.trace } : {}),
      ...(deps.signal ? { signal: deps.signal } : {}),
    })
    const iterations: Iteration[] = []
    const pending = new Map<string, string>()
    for await (const event of run.events) {
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
    const result = await run.result
    if (result.stopReason === 'error' && result.error) throw result.error
    return {
      answer: sandbox.submitted,
      submitted: sandbox.hasSubmitted,
      iterations,
      metadata,
      result,
    }
  } finally {
    await sandbox.dispose()
  }
}

/** What the context-file command line does; returns the exit code (0, 1 without an answer, 2 for bad input). */
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
        'no-metadata': { type: 'boolean' },
      },
      allowPositionals: true,
    }))
  } catch (error) {
    io.error(`context-file: ${(error as Error).message.split('\n')[0]}`)
    return 2
  }
  const contextFile = values['context-file']
  const question = positionals.join(' ').trim()
  if (typeof contextFile !== 'string' || question === '') {
    io.error(
      'usage: context-file.ts --context-file FILE [--model ID] [--max-iterations N] [--time-limit-ms MS] [--no-metadata] "question"',
    )
    return 2
  }
  if (!existsSync(contextFile) || !statSync(contextFile).isFile()) {
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
      contextFile,
      question,
      ...(typeof values.model === 'string' ? { model: values.model } : {}),
      ...(maxIterations === undefined ? {} : { maxIterations }),
      ...(timeLimitMs === undefined ? {} : { sandbox: { timeLimitMs } }),
      ...(values['no-metadata'] ? { metadata: false } : {}),
      print: io.log,
    })
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
  // Offline (no ANTHROPIC_API_KEY) a scripted model answers through the testkit emulator.
  process.exitCode = await runContextFileCli(process.argv.slice(2), {
    log: (line) => console.log(line),
    error: (line) => console.error(line),
    env: process.env,
  })
}
