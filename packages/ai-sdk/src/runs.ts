import {
  createRunInfo,
  type Message,
  type RunInfo,
  type Trace,
  type TurnContext,
} from '@contextkit/core'

/** What one run remembers between its model calls. */
export interface RunMemory {
  run: RunInfo
  /** The turn `prepare` made on the run's first call (its sections, prefill and vars are reused). */
  prepared: TurnContext | undefined
  /** How many messages the run's latest call sent (its last one is a cache breakpoint again). */
  sent?: number
}

/** The run and the step a model call belongs to. */
export interface CallRun {
  memory: RunMemory
  /** 1-based model call number within the run. */
  step: number
}

/**
 * Where a run starts: everything up to and including the last message that holds the user's own
 * words (not only tool results). Later calls of the same `generateText`/`streamText` add the
 * replies and tool results after it, so they share this part.
 */
function baseOf(messages: readonly Message[]): { key: string; after: number } {
  let last = -1
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!
    if (m.role === 'user' && m.content.some((b) => b.type !== 'tool_result')) {
      last = i
      break
    }
  }
  const base = messages.slice(0, last + 1)
  const lastText = last < 0 ? '' : JSON.stringify(messages[last]!.content)
  return { key: `${base.length}\u0000${lastText}`, after: messages.length - (last + 1) }
}

/**
 * The runs a middleware instance has seen, by the conversation they started from (a bounded
 * memory: the oldest runs are forgotten past `limit`). A call is step 1 of a new run when its
 * conversation ends with the user's words, and step N of that run when N − 1 replies (with their
 * tool results) follow them.
 */
export class RunTracker {
  readonly #runs = new Map<string, RunMemory>()

  constructor(readonly options: { workspace?: string; trace?: Trace; limit?: number }) {}

  /** The run and step of a call whose (core) messages are `messages`; `runId` forces a run. */
  locate(messages: readonly Message[], runId?: string): CallRun {
    const { key, after } = baseOf(messages)
    const id = runId === undefined ? key : `id\u0000${runId}`
    const replies = messages
      .slice(messages.length - after)
      .filter((m) => m.role === 'assistant').length
    let memory = this.#runs.get(id)
    if (!memory || replies === 0) {
      memory = {
        run: createRunInfo({
          ...(runId === undefined ? {} : { runId }),
          ...(this.options.workspace === undefined ? {} : { workspace: this.options.workspace }),
          ...(this.options.trace === undefined ? {} : { trace: this.options.trace }),
        }),
        prepared: undefined,
      }
      this.#runs.delete(id)
      this.#runs.set(id, memory)
      const limit = this.options.limit ?? 256
      while (this.#runs.size > limit) {
        const oldest = this.#runs.keys().next().value
        if (oldest === undefined) break
        this.#runs.delete(oldest)
      }
    }
    return { memory, step: replies + 1 }
  }
}
