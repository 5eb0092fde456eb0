import {
  type AssistantMessage,
  type ContextMiddleware,
  getModelInfo,
  type Message,
  MessageListCheck,
  type ModelInfo,
  ModelInfoCheck,
  parseWith,
  type RunInfo,
  runPrepareStep,
  type Section,
  SectionListCheck,
  type TurnContext,
  type Usage,
  ValidationError,
} from '@contextkit/core'
import * as c from '@contextkit/core/check'
import type { CallResult } from '../call/call-types.js'
import { type ToolChoice, ToolChoiceCheck } from '../provider/tool-choice.js'

/** What `runAgent`'s `prepareStep` is told before each model call. */
export interface PrepareStepState {
  /**
   * The step being prepared, from 1, as in events, traces and usage (the AI SDK's `stepNumber`
   * counts from 0).
   */
  step: number
  /** The conversation the call sends unless you replace it: the history and input, then the run's new messages. */
  messages: readonly Message[]
  /** The run's usage so far. */
  usage: Usage
  /** The previous call's reply; `undefined` before the first call. */
  lastReply: AssistantMessage | undefined
}

/** What `prepareStep` may change for one model call (every field optional; all for that call only). */
export interface StepPreparation {
  /** The model of this call: an id from core's table or a `ModelInfo`. */
  model?: string | ModelInfo
  /** Names of the tools offered in this call (a subset of the run's); a call to another is refused. */
  activeTools?: readonly string[]
  /** This call's tool choice, instead of `runAgent`'s `toolChoice`. */
  toolChoice?: ToolChoice
  /** This call's system prompt, instead of the prepared one (a string or core `Section`s). */
  system?: string | Section[]
  /** The whole conversation this call sends; the run's messages and the session are unchanged. */
  messages?: Message[]
}

/**
 * `runAgent`'s per-step hook: called before every model call of the run's agent phase (not the
 * plan call), with {@link PrepareStepState}; return the call's changes or `undefined`.
 */
export type PrepareStep = (
  state: PrepareStepState,
) => StepPreparation | undefined | Promise<StepPreparation | undefined>

const StepPreparationCheck = /* @__PURE__ */ c.lazy(() =>
  c.strictObject({
    model: c.optional(c.union(c.string({ min: 1 }), ModelInfoCheck)),
    activeTools: c.optional(c.array(c.string())),
    toolChoice: c.optional(ToolChoiceCheck),
    system: c.optional(c.union(c.string(), SectionListCheck)),
    messages: c.optional(MessageListCheck),
  }),
)

/** A call as one step prepared it. */
export interface StepSetup {
  turn: TurnContext
  /** The run's new messages sent after `turn.messages` (none when the messages were replaced). */
  extra: readonly Message[]
  toolChoice: ToolChoice | undefined
  /** The messages were replaced for this call (it is sent as prepared, without compaction). */
  ownMessages: boolean
  /** Names offered in this call when `activeTools` narrowed them. */
  offered: ReadonlySet<string> | undefined
}

/** The system prompt option as sections (a string is one stable, required section). */
export function systemSections(system: string | readonly Section[] | undefined): Section[] {
  if (typeof system !== 'string') return [...(system ?? [])]
  if (system === '') return []
  return [{ id: 'system', text: system, priority: 1_000_000, cache: 'stable', required: true }]
}

/** A `ValidationError` naming a tool that is not among `names`. */
function unknownTool(path: string, name: string, names: readonly string[]): ValidationError {
  const known = names.length > 0 ? names.map((n) => `"${n}"`).join(', ') : 'none'
  return new ValidationError(
    `Invalid ${path}: no tool is named "${name}" (tools offered: ${known})`,
    [{ path, message: `unknown tool "${name}"` }],
  )
}

/** Check that a named tool choice names one of `names`. */
export function checkToolChoice(
  choice: ToolChoice | undefined,
  names: readonly string[],
  path: string,
): void {
  if (typeof choice === 'object' && !names.includes(choice.tool))
    throw unknownTool(path, choice.tool, names)
}

/**
 * Per-step control of a run: `runAgent`'s `prepareStep`, then every middleware `prepareStep`.
 * Made only when one of them exists, so a run without them does no per-step work.
 */
export class StepControl {
  readonly #prepareStep: PrepareStep | undefined
  readonly #middleware: readonly ContextMiddleware[]
  readonly #toolChoice: ToolChoice | undefined

  private constructor(
    prepareStep: PrepareStep | undefined,
    middleware: readonly ContextMiddleware[],
    toolChoice: ToolChoice | undefined,
  ) {
    this.#prepareStep = prepareStep
    this.#middleware = middleware
    this.#toolChoice = toolChoice
  }

  /** The run's step control, or `undefined` when nothing prepares steps. */
  static create(o: {
    prepareStep: PrepareStep | undefined
    middleware: readonly ContextMiddleware[]
    toolChoice: ToolChoice | undefined
  }): StepControl | undefined {
    const middleware = o.middleware.filter((m) => typeof m.prepareStep === 'function')
    if (!o.prepareStep && middleware.length === 0) return undefined
    return new StepControl(o.prepareStep, middleware, o.toolChoice)
  }

  /** Prepare step `step` (from 1) from the run's prepared turn and its new messages so far. */
  async setup(
    base: TurnContext,
    extra: readonly Message[],
    step: number,
    usage: Usage,
    run: RunInfo,
  ): Promise<StepSetup> {
    const sent = extra.slice() // the run's list grows after this call: hooks get a snapshot
    const lastReply = sent.findLast((m): m is AssistantMessage => m.role === 'assistant')
    let turn = base
    let toolChoice = this.#toolChoice
    let offered: Set<string> | undefined
    let replaced: Message[] | undefined
    if (this.#prepareStep) {
      const given = await this.#prepareStep({
        step,
        messages: sent.length > 0 ? [...base.messages, ...sent] : base.messages,
        usage,
        lastReply,
      })
      if (given !== undefined) {
        const prep = parseWith(StepPreparationCheck, given, 'prepareStep result')
        ;({ turn, offered } = applyPreparation(turn, prep, given as StepPreparation))
        if (prep.toolChoice !== undefined) toolChoice = prep.toolChoice
        if (prep.messages !== undefined) {
          replaced = (given as StepPreparation).messages as Message[]
          turn = { ...turn, messages: replaced }
        }
      }
    }
    const before = turn.messages
    if (this.#middleware.length > 0) {
      const info = { step, newMessages: sent, ...(lastReply ? { lastReply } : {}) }
      turn = await runPrepareStep(this.#middleware, turn, run, info)
    }
    const names = turn.tools.map((t) => t.name)
    checkToolChoice(toolChoice, names, 'prepareStep result: toolChoice')
    const ownMessages = replaced !== undefined || turn.messages !== before
    return { turn, extra: replaced ? [] : sent, toolChoice, ownMessages, offered }
  }
}

/** A checked preparation's model, system and active tools applied to `turn`. */
function applyPreparation(
  turn: TurnContext,
  prep: c.Infer<typeof StepPreparationCheck>,
  given: StepPreparation,
): { turn: TurnContext; offered: Set<string> | undefined } {
  let next = turn
  if (given.model !== undefined) {
    const model = typeof given.model === 'string' ? getModelInfo(given.model) : given.model
    next = { ...next, model }
  }
  if (given.system !== undefined) next = { ...next, system: systemSections(given.system) }
  if (prep.activeTools === undefined) return { turn: next, offered: undefined }
  const names = turn.tools.map((t) => t.name)
  for (const name of prep.activeTools)
    if (!names.includes(name)) throw unknownTool('prepareStep result: activeTools', name, names)
  const offered = new Set(prep.activeTools)
  return { turn: { ...next, tools: turn.tools.filter((t) => offered.has(t.name)) }, offered }
}

/** `toolChoice` as an optional `CallSpec` field. */
export function withChoice(choice: ToolChoice | undefined): { toolChoice?: ToolChoice } {
  return choice === undefined ? {} : { toolChoice: choice }
}

/** Calls to tools the step did not offer (`activeTools`) are answered with an error result. */
export function refuseNotOffered(
  result: Extract<CallResult, { kind: 'done' }>,
  offered: ReadonlySet<string>,
): void {
  for (const b of result.reply.content) {
    if (b.type !== 'tool_call' || offered.has(b.name) || result.invalidCalls.has(b.id)) continue
    result.invalidCalls.set(b.id, `"${b.name}" is not offered in this step (activeTools)`)
  }
}
