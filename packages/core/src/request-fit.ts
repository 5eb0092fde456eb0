import { assertArray, assertFiniteNumber, assertObject } from './errors.js'
import { estimateRequestTokens } from './message-estimate.js'
import type { Message, ToolDefinition } from './message-schemas.js'
import {
  type FitResult,
  fitCheckedSections,
  fitSections,
  type Omission,
  renderOmissionNotice,
  type Section,
} from './sections.js'
import type { TokenCounter } from './tokens.js'

/** Id of the system section {@link fitRequest} adds to tell the model what fitting left out. */
export const OMISSION_NOTICE_ID = 'omission-notice'

/** Input of {@link fitRequest}: one model request's sections, and what else takes its window. */
export interface RequestFitInput {
  /** System sections, in order. */
  system: readonly Section[]
  /** Sections appended to the current user turn, in order. */
  userSections: readonly Section[]
  /** What was left out before this fitting (a middleware's own omissions). Default: none. */
  omitted?: readonly Omission[]
  /** The request's messages (history and the current turn). Default: none. */
  messages?: readonly Message[]
  /** The tool definitions offered. Default: none. */
  tools?: readonly ToolDefinition[]
  /**
   * What `messages` and `tools` take, when the caller has already estimated them with
   * `estimateRequestTokens` (the agent loop remembers each message's count for a run); then
   * `messages` and `tools` are not read. Default: estimated here.
   */
  requestTokens?: number
  /** The model's context window. */
  contextWindow: number
  /** The reply's `max_tokens`, kept free in the window. */
  maxTokens: number
  /**
   * The sections' budget. Default: the context window − `maxTokens` − the messages and tools
   * (never below 0).
   */
  budgetTokens?: number
  /** Counts the section texts (and the messages and tools, unless `requestTokens` is given). */
  counter: TokenCounter
  /**
   * The caller has already checked these very section objects against `SectionListCheck` (the
   * agent loop checks each object once per run), so they are not checked again. Default `false`.
   */
  sectionsChecked?: boolean
}

/** One request's sections after {@link fitRequest}. */
export interface RequestFit {
  /** The kept system sections, then the omission notice when anything was left out. */
  system: Section[]
  /** The kept user sections. */
  userSections: Section[]
  /** The input's `omitted`, then what this fitting dropped or shortened. */
  omitted: Omission[]
  /** The budget the sections were fitted into. */
  budget: number
  /** What the kept sections cost (the notice is not counted). */
  tokens: number
  /** `false` only when the `required` sections alone are over the budget. */
  fits: boolean
}

/**
 * Fit one model request's system and user sections together into their budget (`budgetTokens`,
 * default: the context window − `maxTokens` − the messages and tool definitions as
 * `estimateRequestTokens` counts them) with {@link fitSections}: shorter forms first, then the
 * lowest priorities dropped. Each kept section stays on its side and in its order; when anything
 * was left out (now or in `omitted`), the omission notice (`renderOmissionNotice`, id
 * {@link OMISSION_NOTICE_ID}) is appended as the last, volatile system section, so truncation is
 * never silent. The notice itself is outside the budget. With no sections it fits nothing and
 * still reports the budget. Pure: the input is not changed.
 *
 * When `required` sections alone are over the budget, `fits` is `false` and they are all kept:
 * refusing to send is the caller's decision.
 *
 * @throws ValidationError when an input field has the wrong type, a section is invalid (unless
 * `sectionsChecked`), or the budget is not a finite number ≥ 0.
 */
export function fitRequest(input: RequestFitInput): RequestFit {
  checkInput(input)
  const budget = sectionBudget(input)
  const all = [...input.system, ...input.userSections]
  const fit: FitResult = input.sectionsChecked
    ? fitCheckedSections(all, budget, input.counter)
    : fitSections(all, budget, input.counter)
  const userIds = new Set(input.userSections.map((s) => s.id))
  const omitted = [...(input.omitted ?? []), ...fit.omissions]
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
    fits: fit.fits,
  }
}

function sectionBudget(input: RequestFitInput): number {
  if (input.budgetTokens !== undefined) return input.budgetTokens
  const used =
    input.requestTokens ??
    estimateRequestTokens(
      { messages: input.messages ?? [], tools: input.tools ?? [] },
      input.counter,
    )
  return Math.max(0, input.contextWindow - input.maxTokens - used)
}

function checkInput(input: RequestFitInput): void {
  const fn = 'fitRequest'
  assertObject(input, fn, 'input')
  assertArray(input.system, fn, 'input.system')
  assertArray(input.userSections, fn, 'input.userSections')
  if (input.omitted !== undefined) assertArray(input.omitted, fn, 'input.omitted')
  if (input.budgetTokens === undefined) {
    assertFiniteNumber(input.contextWindow, fn, 'input.contextWindow')
    assertFiniteNumber(input.maxTokens, fn, 'input.maxTokens')
    if (input.requestTokens !== undefined) {
      assertFiniteNumber(input.requestTokens, fn, 'input.requestTokens')
    }
  }
}
