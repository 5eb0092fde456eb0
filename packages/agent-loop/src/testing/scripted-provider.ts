import type { StopReason, Usage } from '@contextkit/core'
import { assertOptions, invalidArgument } from '@contextkit/core'
import type { ModelProvider, ProviderEvent, ProviderRequest } from '../provider/contract.js'
import { ProviderError } from '../provider/errors.js'

/** One scripted reply of {@link scriptedProvider}. A string is a text reply. */
export type ScriptedReply =
  | string
  | {
      text?: string
      /** A native thinking block first (signed `sig_<n>`). */
      thinking?: string
      toolCalls?: ReadonlyArray<{ name: string; input: Record<string, unknown>; id?: string }>
      /** Default `tool_use` with tool calls, else `end_turn`. */
      stopReason?: StopReason
      usage?: Partial<Usage>
      /** Fail instead of answering (after the content, when there is any). */
      error?: { message: string; status?: number; errorType?: string; retryable?: boolean }
      /** Wait this long before each event (abortable). Default `0`. */
      delayMs?: number
    }

/** Options of {@link scriptedProvider}. */
export interface ScriptedProviderOptions {
  /** Provider name. Default `scripted`. */
  name?: string
  /** Characters per text delta. Default `16`. */
  chunkChars?: number
  /** Keep every request in `requests`. Default `true` (turn it off for long benchmarks). */
  record?: boolean
}

/** A {@link ModelProvider} that answers from a script, in process; `requests` records every call. */
export interface ScriptedProvider extends ModelProvider {
  /** Every request the provider received, in order. */
  readonly requests: ProviderRequest[]
  /** Calls made so far. */
  readonly calls: number
}

function wait(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) return Promise.resolve()
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms)
    function done(): void {
      clearTimeout(timer)
      signal.removeEventListener('abort', done)
      resolve()
    }
    signal.addEventListener('abort', done, { once: true })
  })
}

function* replyEvents(
  reply: Exclude<ScriptedReply, string>,
  index: number,
  chunk: number,
): Generator<ProviderEvent> {
  if (reply.thinking !== undefined) {
    yield { type: 'thinking-delta', text: reply.thinking }
    yield { type: 'thinking-end', signature: `sig_${index}` }
  }
  const text = reply.text ?? ''
  for (let i = 0; i < text.length; i += chunk)
    yield { type: 'text-delta', text: text.slice(i, i + chunk) }
  for (const [n, call] of (reply.toolCalls ?? []).entries()) {
    const id = call.id ?? `call_${index}_${n}`
    const json = JSON.stringify(call.input)
    yield { type: 'tool-call-start', id, name: call.name }
    yield { type: 'tool-call-delta', id, partialJson: json }
    yield { type: 'tool-call-end', id, name: call.name, input: call.input }
  }
}

/**
 * An in-process provider for tests and benchmarks: each call takes the next scripted reply (or
 * calls the script function) and streams it as provider events, honouring the abort signal. Not
 * a mock of the loop: the loop, formatters, parsers and tools all run for real.
 */
export function scriptedProvider(
  script: readonly ScriptedReply[] | ((request: ProviderRequest, index: number) => ScriptedReply),
  options: ScriptedProviderOptions = {},
): ScriptedProvider {
  if (!Array.isArray(script) && typeof script !== 'function') {
    invalidArgument('scriptedProvider', 'script', 'an array of replies or a function', script)
  }
  assertOptions(options, 'scriptedProvider')
  const requests: ProviderRequest[] = []
  const chunk = Math.max(1, options.chunkChars ?? 16)
  let calls = 0
  return {
    name: options.name ?? 'scripted',
    requests,
    get calls() {
      return calls
    },
    async *stream(request, { signal }) {
      const index = calls++
      if (options.record !== false) requests.push(request)
      const step = typeof script === 'function' ? script(request, index) : script[index]
      if (step === undefined) {
        yield {
          type: 'error',
          error: new ProviderError(`The script has no reply ${index + 1}`, {
            errorType: 'script_exhausted',
          }),
        }
        return
      }
      const reply = typeof step === 'string' ? { text: step } : step
      for (const event of replyEvents(reply, index, chunk)) {
        await wait(reply.delayMs ?? 0, signal)
        if (signal.aborted) return
        yield event
      }
      await wait(reply.delayMs ?? 0, signal)
      if (signal.aborted) return
      if (reply.error) {
        const { message, ...rest } = reply.error
        yield { type: 'error', error: new ProviderError(message, rest) }
        return
      }
      const hasCalls = (reply.toolCalls?.length ?? 0) > 0
      yield {
        type: 'finish',
        stopReason: reply.stopReason ?? (hasCalls ? 'tool_use' : 'end_turn'),
        usage: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, ...reply.usage },
      }
    },
  }
}
