import {
  assertArray,
  assertObject,
  fitCheckedSections,
  invalidArgument,
  type Message,
  type Omission,
  parseWith,
  renderOmissionNotice,
  type Section,
  SectionListCheck,
  type TokenCounter,
  type ToolDefinition,
} from '@contextkit/core'
import { RequiredSectionsError } from './errors.js'
import { messageTokens } from './history.js'

/** Id of the system section that tells the model what budget fitting left out. */
export const OMISSION_NOTICE_ID = 'omission-notice'

/** The sections of one request after fitting. */
export interface FittedSections {
  system: Section[]
  userSections: Section[]
  /** What the turn already had omitted plus what this fitting dropped or shortened. */
  omitted: Omission[]
  /** The budget the sections were fitted into, and what they cost. */
  budget: number
  tokens: number
}

/**
 * Counts tokens for one run: each distinct text once (section texts repeat on every call), and
 * each message object once (messages are never mutated), so a call's overhead does not grow
 * with the history already counted.
 */
export class RunTokenCounter {
  readonly counter: TokenCounter
  readonly #texts = new Map<string, number>()
  readonly #messages = new WeakMap<Message, number>()
  readonly #lists = new WeakMap<readonly Message[], number>()
  readonly #tools = new WeakMap<readonly ToolDefinition[], number>()
  readonly #checked = new WeakSet<Section>()

  constructor(counter: TokenCounter) {
    this.counter = counter
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
    let n = this.#messages.get(message)
    if (n === undefined) {
      n = messageTokens(message, this.counter)
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
      total = 0
      for (const t of tools) {
        const text = `${t.name}\n${t.description}\n${JSON.stringify(t.inputSchema)}`
        total += safe(this.counter.count(text))
      }
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
  maxTokens: number
  /** Explicit section budget; default: what the context window leaves after the rest. */
  budgetTokens?: number
  counter: RunTokenCounter
}

/**
 * The token budget of the system and user sections: `budgetTokens` when given, else what the
 * context window leaves after the reply (`maxTokens`), the messages and the tool definitions.
 */
export function sectionBudget(
  input: Pick<
    FitInput,
    'messages' | 'extra' | 'tools' | 'contextWindow' | 'maxTokens' | 'budgetTokens' | 'counter'
  >,
): number {
  return (
    input.budgetTokens ??
    Math.max(
      0,
      input.contextWindow -
        input.maxTokens -
        input.counter.messages(input.messages) -
        extraTokens(input.counter, input.extra) -
        input.counter.tools(input.tools),
    )
  )
}

/**
 * Step 5 of a turn, per model call: fit the system and user sections together with core
 * `fitSections` into `budgetTokens` (default: context window − `maxTokens` − messages − tool
 * definitions), keep each kept section on its side, and append core's omission notice as the
 * last, volatile system section when anything was left out, so truncation is never silent.
 */
export function fitRequestSections(input: FitInput): FittedSections {
  assertObject(input, 'fitRequestSections', 'input')
  for (const key of ['system', 'userSections', 'omitted', 'messages', 'tools'] as const) {
    assertArray(input[key], 'fitRequestSections', `input.${key}`)
  }
  if (typeof (input.counter as Partial<RunTokenCounter> | undefined)?.asCounter !== 'function') {
    invalidArgument('fitRequestSections', 'input.counter', 'a RunTokenCounter', input.counter)
  }
  const budget = sectionBudget(input)
  const all = [...input.system, ...input.userSections]
  input.counter.checkSections(all)
  const fit = fitCheckedSections(all, budget, input.counter.asCounter())
  if (!fit.fits) {
    const required = all.filter((s) => s.required).map((s) => s.id)
    throw new RequiredSectionsError(
      `The required sections (${required.join(', ')}) need ~${fit.tokens} tokens, over the ${budget}-token budget left for sections; nothing was sent`,
      { details: { required, tokens: fit.tokens, budget } },
    )
  }
  const userIds = new Set(input.userSections.map((s) => s.id))
  const omitted = [...input.omitted, ...fit.omissions]
  const system = fit.kept.filter((s) => !userIds.has(s.id))
  if (omitted.length > 0) {
    system.push({
      id: OMISSION_NOTICE_ID,
      text: renderOmissionNotice(omitted),
      priority: Number.MAX_SAFE_INTEGER,
      cache: 'volatile',
    })
  }
  return {
    system,
    userSections: fit.kept.filter((s) => userIds.has(s.id)),
    omitted,
    budget,
    tokens: fit.tokens,
  }
}
