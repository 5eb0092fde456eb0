import type { StopReason, Usage } from '@contextkit/core'
import type { ProviderEvent } from '../provider/contract.js'
import type { ProviderError } from '../provider/errors.js'
import { malformedError, streamError } from '../provider/http-errors.js'
import { PROVIDER_WARNINGS } from '../provider/warnings.js'
import { StopScanner } from './stop-scanner.js'

/**
 * `finish_reason` of an OpenAI-compatible completion → core stop reason: `stop` → `end_turn`
 * (or `stop_sequence` when the server names the matched string, as vLLM's `stop_reason` does),
 * `length` → `max_tokens`, `content_filter` → `refusal`. Others read as `end_turn` with a warning.
 */
export const FINISH_REASONS: Readonly<Record<string, StopReason>> = Object.freeze({
  stop: 'end_turn',
  eos: 'end_turn',
  length: 'max_tokens',
  content_filter: 'refusal',
})

interface Choice {
  text?: unknown
  finish_reason?: unknown
  stop_reason?: unknown
}

function usageOf(raw: unknown): Partial<Usage> | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined
  const u = raw as Record<string, unknown>
  const out: Partial<Usage> = {}
  if (typeof u.prompt_tokens === 'number') out.input = u.prompt_tokens
  if (typeof u.completion_tokens === 'number') out.output = u.completion_tokens
  const cached = (u.prompt_tokens_details as { cached_tokens?: unknown } | undefined)?.cached_tokens
  if (typeof cached === 'number') out.cacheRead = cached
  return Object.keys(out).length > 0 ? out : undefined
}

/**
 * Folds the JSON chunks of a completions stream (or one whole completion) into provider events:
 * text through a {@link StopScanner}, usage, the finish reason; an `error` object or a chunk that
 * is not JSON becomes a typed failure.
 */
export class CompletionAssembler {
  readonly #scanner: StopScanner
  readonly #stops: ReadonlySet<string>
  readonly #requestId: string | undefined
  #usage: Usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }
  #finish: string | undefined
  #serverStop: string | undefined
  /** Set once the stream failed; nothing more is read. */
  error: ProviderError | undefined
  /** `[DONE]` arrived, a finish reason did, or a stop sequence matched: the reply is whole. */
  complete = false

  constructor(stops: readonly string[], requestId: string | undefined) {
    this.#scanner = new StopScanner(stops)
    this.#stops = new Set(stops)
    this.#requestId = requestId
  }

  /** One `data:` payload of the stream. */
  data(data: string): ProviderEvent[] {
    if (data.trim() === '[DONE]') {
      this.complete = true
      return []
    }
    let chunk: unknown
    try {
      chunk = JSON.parse(data)
    } catch {
      this.error = malformedError(`data: ${data}`, this.#requestId)
      return []
    }
    return this.chunk(chunk)
  }

  /** One parsed chunk (or a whole non-streamed completion). */
  chunk(chunk: unknown): ProviderEvent[] {
    if (typeof chunk !== 'object' || chunk === null) {
      this.error = malformedError(`data: ${JSON.stringify(chunk)}`, this.#requestId)
      return []
    }
    const body = chunk as { error?: unknown; choices?: unknown; usage?: unknown }
    if (body.error !== undefined && body.error !== null) {
      this.error = streamError(body, this.#requestId)
      return []
    }
    const events: ProviderEvent[] = []
    const choice = (Array.isArray(body.choices) ? body.choices[0] : undefined) as Choice | undefined
    if (typeof choice?.text === 'string' && choice.text !== '' && !this.#scanner.stopped) {
      const { text, stop } = this.#scanner.push(choice.text)
      if (text) events.push({ type: 'text-delta', text })
      if (stop !== undefined) this.complete = true
    }
    if (typeof choice?.finish_reason === 'string') {
      this.#finish = choice.finish_reason
      if (typeof choice.stop_reason === 'string') this.#serverStop = choice.stop_reason
    }
    const usage = usageOf(body.usage)
    if (usage) {
      this.#usage = { ...this.#usage, ...usage }
      events.push({ type: 'usage', usage: { ...this.#usage } })
    }
    return events
  }

  /** The closing events: held-back text, then `finish`. */
  finish(): ProviderEvent[] {
    const events: ProviderEvent[] = []
    const rest = this.#scanner.flush()
    if (rest.text) events.push({ type: 'text-delta', text: rest.text })
    const matched = this.#scanner.stopped
    let stopReason: StopReason
    let stopSequence: string | undefined
    if (matched !== undefined) {
      stopReason = 'stop_sequence'
      stopSequence = matched
    } else if (this.#finish === 'stop' && this.#serverStop && this.#stops.has(this.#serverStop)) {
      stopReason = 'stop_sequence'
      stopSequence = this.#serverStop
    } else {
      const known = this.#finish === undefined ? undefined : FINISH_REASONS[this.#finish]
      stopReason = known ?? 'end_turn'
      if (known === undefined && this.#finish !== undefined) {
        events.push({
          type: 'warning',
          code: PROVIDER_WARNINGS.unknownFinishReason,
          message: `Unknown finish_reason ${JSON.stringify(this.#finish)}; read as end_turn`,
        })
      }
    }
    events.push({
      type: 'finish',
      stopReason,
      ...(stopSequence === undefined ? {} : { stopSequence }),
      usage: { ...this.#usage },
      ...(this.#requestId ? { requestId: this.#requestId } : {}),
    })
    return events
  }

  /** Whether the server said how the reply ended (a body may end without `[DONE]`). */
  get finished(): boolean {
    return this.#finish !== undefined || this.complete
  }
}
