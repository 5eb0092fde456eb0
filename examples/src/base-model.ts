import { parseArgs } from 'node:util'
import {
  type AgentResult,
  defineTool,
  type ModelProvider,
  type ProviderRequest,
  runAgent,
} from '@contextkit/agent-loop'
import { openAICompatibleCompletionsProvider } from '@contextkit/agent-loop/completions'
import { getModelInfo, type Message, textMessage } from '@contextkit/core'
import { ChatMLFormatter, CompletionsFormatter } from '@contextkit/formatters'
import { z } from 'zod'
import { isEntryPoint } from './entry-point.js'

/** Which prompt format the server's model gets. */
export type BaseModelFormat = 'chatml' | 'completions'

/** One line of a group chat, for the base-model (completions) format. */
export interface ChatLine {
  speaker: string
  text: string
}

/** Dependencies and options of {@link main}. */
export interface BaseModelDeps {
  /** The OpenAI-compatible server, up to and including `/v1` (llama.cpp, vLLM, Ollama, testkit). */
  baseURL: string
  /** The `model` field. Default `qwen2.5-7b-instruct`. */
  model?: string
  /**
   * `chatml` (default): an instruct model in its chat template, with a tool (Qwen `<tool_call>`
   * JSON). `completions`: a base model continuing a `Name: text` transcript.
   */
  format?: BaseModelFormat
  /** For `chatml`: the question. Default: asks for the words in a sentence. */
  question?: string
  /** For `completions`: the chat so far; the model speaks next as `Assistant`. */
  chat?: ChatLine[]
  apiKey?: string
  fetch?: typeof fetch
  /** Where the account goes. Default: nowhere. */
  print?: (line: string) => void
}

/** What {@link main} did. */
export interface BaseModelResult {
  /** Every prompt string sent, in order. */
  prompts: string[]
  /** The stop sequences of the first request. */
  stopSequences: string[]
  /** The final text. */
  text: string
  /** The tool calls the model made (`chatml`). */
  toolCalls: Array<{ name: string; input: Record<string, unknown> }>
  result: AgentResult
}

/** The one tool of the ChatML run: count the words of a text. */
export const countWords = defineTool({
  name: 'count_words',
  description: 'Count the words of a text (split on whitespace).',
  input: z.object({ text: z.string() }),
  execute: ({ text }) => text.split(/\s+/).filter((w) => w !== '').length,
})

/** The default question of the ChatML run. */
export const DEFAULT_QUESTION =
  'How many words are in "the quick brown fox jumps over the lazy dog"? Use the tool.'

/** The default chat of the completions run. */
export const DEFAULT_CHAT: ChatLine[] = [
  { speaker: 'Ada', text: 'Who brings what on Saturday?' },
  { speaker: 'Bob', text: 'I have the cake.' },
]

function recording(inner: ModelProvider, prompts: ProviderRequest[]): ModelProvider {
  return {
    name: inner.name,
    stream(request, options) {
      prompts.push(request)
      return inner.stream(request, options)
    },
  }
}

/**
 * Local and hosted models behind an OpenAI-compatible `/v1/completions` endpoint, driven by
 * the loop: `ChatMLFormatter` renders an instruct model's chat template (with a tool the model
 * calls in Qwen's `<tool_call>` JSON), `CompletionsFormatter` a base model's `Name: text`
 * transcript with stop sequences for every speaker; agent-loop's
 * `openAICompatibleCompletionsProvider` sends the prompt string and streams the text back, and the
 * formatter's parser turns it into text and tool calls.
 */
export async function main(deps: BaseModelDeps): Promise<BaseModelResult> {
  const model = deps.model ?? 'qwen2.5-7b-instruct'
  const requests: ProviderRequest[] = []
  const provider = recording(
    openAICompatibleCompletionsProvider({
      baseURL: deps.baseURL,
      model,
      ...(deps.apiKey ? { apiKey: deps.apiKey } : {}),
      ...(deps.fetch ? { fetch: deps.fetch } : {}),
    }),
    requests,
  )
  const chatml = (deps.format ?? 'chatml') === 'chatml'
  const messages: Message[] = chatml
    ? [textMessage('user', deps.question ?? DEFAULT_QUESTION)]
    : (deps.chat ?? DEFAULT_CHAT).map((l) =>
        textMessage('user', l.text, { participant: l.speaker }),
      )
  const run = runAgent({
    provider,
    // not in core's table: a local model gets conservative limits, which is what we want here
    model: getModelInfo(model),
    formatter: chatml ? new ChatMLFormatter() : new CompletionsFormatter(),
    ...(chatml ? { system: 'You are a concise assistant.', tools: [countWords] } : {}),
    messages,
    maxTokens: 256,
  })
  const toolCalls: BaseModelResult['toolCalls'] = []
  const print = deps.print ?? (() => {})
  for await (const event of run.events) {
    if (event.type === 'tool-call') {
      toolCalls.push({ name: event.call.name, input: event.call.input })
      print(`tool call: ${event.call.name} ${JSON.stringify(event.call.input)}`)
    }
  }
  const result = await run.result
  if (result.stopReason === 'error' && result.error) throw result.error
  print(`answer: ${result.text}`)
  return {
    prompts: requests.map((r) => r.prompt ?? ''),
    stopSequences: requests[0]?.stopSequences ?? [],
    text: result.text,
    toolCalls,
    result,
  }
}

if (isEntryPoint(import.meta.url)) {
  // tsx examples/src/base-model.ts [--base-url http://127.0.0.1:8080/v1] [--model ID] [--format completions] ["question"]
  // Without --base-url a scripted model answers through testkit's /v1/completions.
  const { values, positionals } = parseArgs({
    options: {
      'base-url': { type: 'string' },
      model: { type: 'string' },
      format: { type: 'string' },
    },
    allowPositionals: true,
  })
  const format = values.format === 'completions' ? 'completions' : 'chatml'
  const { startAnthropicEmulator } = await import('@contextkit/testkit')
  const { baseModelScript } = await import('./base-model-script.js')
  const server = values['base-url']
    ? undefined
    : await startAnthropicEmulator({ script: baseModelScript })
  if (server) console.log(`offline: a scripted model answers at ${server.url}/v1/completions`)
  try {
    const result = await main({
      baseURL: values['base-url'] ?? `${server?.url}/v1`,
      format,
      ...(values.model ? { model: values.model } : {}),
      ...(positionals.length > 0 ? { question: positionals.join(' ') } : {}),
      print: (line) => console.log(line),
    })
    console.log(`prompt of the first call:\n${result.prompts[0]}`)
  } finally {
    await server?.close()
  }
}
