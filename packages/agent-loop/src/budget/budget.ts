import {
  assertArray,
  assertObject,
  type ContextWindowSource,
  estimateRequestTokens,
  fitRequest,
  invalidArgument,
  type Message,
  type Omission,
  parseWith,
  type RequestFit,
  type Section,
  SectionListCheck,
  type TokenCounter,
  type ToolDefinition,
} from '@contextkit/core'
import { describeWindow } from './context-window.js'
import { RequiredSectionsError } from './errors.js'
import { type MessageEstimates, sharedEstimates } from './message-estimates.js'

/** The sections of one request after fitting (core's `fitRequest`). */
export type FittedSections = RequestFit

/**
 * Counts tokens for one run: each distinct text once (section texts repeat on every call), and
 * each message object once (messages are never mutated during a run), so a call's overhead does
 * not grow with the history already counted. With the loop's default counter, a message's count
 * is also kept from run to run while the message is unchanged (see `MessageEstimates`).
 */
export class RunTokenCounter {
  readonly counter: TokenCounter
  /** Estimates of messages kept across runs (the loop's default counter only). */
  readonly #shared: MessageEstimates | undefined
  readonly #texts = new Map<string, number>()
  readonly #messages = new WeakMap<Message, number>()
  readonly #lists = new WeakMap<readonly Message[], number>()
  readonly #tools = new WeakMap<readonly ToolDefinition[], number>()
  readonly #checked = new WeakSet<Section>()

  constructor(counter: TokenCounter) {
    this.counter = counter
    this.#shared = sharedEstimates(counter)
  }

  text(text: string): number {
    let n = this.#texts.get(text)
    if (n === undefined) {
      n = safe(this.counter.count(text))
      if (this.#texts.size > 10_000) this.#texts.clear()
      this.#texts.set(text, n)
    }
    return n
  }

  message(message: Message): number {
    // the shared estimates are as quick to ask as a memo of this run's own
    if (this.#shared) return this.#shared.tokens(message)
    let n = this.#messages.get(message)
    if (n === undefined) {
      n = estimateRequestTokens({ messages: [message] }, this.counter)
      this.#messages.set(message, n)
    }
    return n
  }

  /** Tokens of a message list; a list is counted once (lists, like messages, are never mutated). */
  messages(messages: readonly Message[]): number {
    let total = this.#lists.get(messages)
    if (total === undefined) {
      total = 0
      for (const m of messages) total += this.message(m)
      this.#lists.set(messages, total)
    }
    return total
  }

  /** Tokens of tool definitions (name, description, JSON Schema); a list is counted once. */
  tools(tools: readonly ToolDefinition[]): number {
    let total = this.#tools.get(tools)
    if (total === undefined) {
      total = this.#shared
        ? this.#shared.tools(tools)
        : estimateRequestTokens({ tools }, this.counter)
      this.#tools.set(tools, total)
    }
    return total
  }

  /**
   * Forget the memoized counts of `texts` (an asynchronous counter now answers them exactly; see
   * `AsyncTokenCounter`).
   */
  forget(texts: Iterable<string>): void {
    for (const t of texts) this.#texts.delete(t)
  }

  /**
   * Check `sections` as core's `fitSections` does (a `ValidationError` naming the bad one),
   * unless every one of these very objects passed earlier in this run: the turn's sections
   * come back on every model call, and only a new object (a `prepareStep` hook's) needs a look.
   */
  checkSections(sections: readonly Section[]): void {
    if (sections.every((s) => this.#checked.has(s))) return
    parseWith(SectionListCheck, sections, 'fitSections sections')
    for (const s of sections) this.#checked.add(s)
  }

  /** A `TokenCounter` view with the text memo, for `fitSections`. */
  asCounter(): TokenCounter {
    return { id: this.counter.id, kind: this.counter.kind, count: (t) => this.text(t) }
  }
}

function extraTokens(counter: RunTokenCounter, extra: readonly Message[] | undefined): number {
  let total = 0
  for (const m of extra ?? []) total += counter.message(m)
  return total
}

function safe(n: number): number {
  return Number.isFinite(n) && n > 0 ? n : 0
}

/** Inputs of {@link fitRequestSections}. */
export interface FitInput {
  system: readonly Section[]
  userSections: readonly Section[]
  omitted: readonly Omission[]
  /** The turn's messages (history and user turn). */
  messages: readonly Message[]
  /** Messages of this run after them (replies and tool results so far). */
  extra?: readonly Message[]
  tools: readonly ToolDefinition[]
  contextWindow: number
  /** Where `contextWindow` came from, quoted by the error. Default: not said. */
  windowSource?: ContextWindowSource
  maxTokens: number
  /** Explicit section budget; default: what the context window leaves after the rest. */
  budgetTokens?: number
  counter: RunTokenCounter
}

/** What {@link sectionBudget} needs of a model call. */
type BudgetInput = Pick<
  FitInput,
  'messages' | 'extra' | 'tools' | 'contextWindow' | 'maxTokens' | 'budgetTokens' | 'counter'
>

/**
 * The budget part of core's `fitRequest` input: `budgetTokens` when given, else what the messages
 * and tool definitions take, from the run's memo (core's `estimateRequestTokens` per message).
 */
function budgetOf(input: BudgetInput) {
  const { counter } = input
  return {
    contextWindow: input.contextWindow,
    maxTokens: input.maxTokens,
    ...(input.budgetTokens === undefined
      ? {
          requestTokens:
            counter.messages(input.messages) +
            extraTokens(counter, input.extra) +
            counter.tools(input.tools),
        }
      : { budgetTokens: input.budgetTokens }),
    counter: counter.asCounter(),
  }
}

/**
 * The token budget of the system and user sections: `budgetTokens` when given, else what the
 * context window leaves after the reply (`maxTokens`), the messages and the tool definitions.
 */
export function sectionBudget(input: BudgetInput): number {
  // core's fitRequest owns the budget rule: with no sections it fits nothing and reports it
  return fitRequest({ system: [], userSections: [], ...budgetOf(input) }).budget
}

/**
 * Step 5 of a turn, per model call: core's `fitRequest` with the run's memoized counts (each
 * section object checked once per run), refusing to send when the required sections alone are
 * over the budget.
 *
 * @throws RequiredSectionsError when the required sections alone are over the budget.
 */
export function fitRequestSections(input: FitInput): FittedSections {
  assertObject(input, 'fitRequestSections', 'input')
  for (const key of ['system', 'userSections', 'omitted', 'messages', 'tools'] as const) {
    assertArray(input[key], 'fitRequestSections', `input.${key}`)
  }
  if (typeof (input.counter as Partial<RunTokenCounter> | undefined)?.asCounter !== 'function') {
    invalidArgument('fitRequestSections', 'input.counter', 'a RunTokenCounter', input.counter)
  }
  const all = [...input.system, ...input.userSections]
  input.counter.checkSections(all)
  const fitted = fitRequest({
    system: input.system,
    userSections: input.userSections,
    omitted: input.omitted,
    ...budgetOf(input),
    sectionsChecked: true,
  })
  if (!fitted.fits) {
    const required = all.filter((s) => s.required).map((s) => s.id)
    const { tokens, budget } = fitted
    const window = input.windowSource
      ? { tokens: input.contextWindow, source: input.windowSource }
      : undefined
    const of = window ? ` of the ${describeWindow(window)}` : ''
    throw new RequiredSectionsError(
      `The required sections (${required.join(', ')}) need ~${tokens} tokens, over the ${budget}-token budget left for sections${of}; nothing was sent`,
      {
        details: {
          required,
          tokens,
          budget,
          contextWindow: input.contextWindow,
          ...(window ? { windowSource: window.source } : {}),
        },
      },
    )
  }
  return fitted
}
