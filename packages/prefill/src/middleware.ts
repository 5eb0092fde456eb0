import {
  type AssistantMessage,
  type ContextMiddleware,
  describeError,
  type FinalizeInfo,
  getRunState,
  type Message,
  type ModelInfo,
  parseWith,
  type RunInfo,
  recordWarning,
  type StepInfo,
  setRunState,
  type TurnContext,
  textMessage,
} from '@contextkit/core'
import * as z from 'zod'
import { type PrefillConfig, type PrefillConfigInput, PrefillConfigSchema } from './config.js'
import { DynamicPrefillLoader } from './dynamic-prefill.js'
import { PrefillRejectedError } from './errors.js'
import { createPrefillCache, type PrefillCache } from './file-cache.js'
import { type AppliedPrefill, applyPrefill, fallback } from './inject.js'
import { PREFILL_STATE_KEY, PREFILL_TRACE_STAGES } from './names.js'
import { loadWithConfig } from './read-prefill.js'
import { isPrefillRejection } from './rejection.js'
import { ensurePrefillInContent, stripPrefillFromContent } from './strip.js'

/** The schema of {@link PrefillState}: the state is checked with it when a run reads it back. */
export const PrefillStateSchema = z.object({
  text: z.string().min(1),
  mode: z.enum(['native', 'instruct']),
  placement: z.enum(['turn', 'messages']),
  source: z.string().optional(),
  /** `recover` already fell back in this run. */
  recovered: z.boolean().optional(),
})
/** What the middleware keeps in `run.state` under {@link PREFILL_STATE_KEY}. */
export type PrefillState = z.infer<typeof PrefillStateSchema>

/** Options of {@link prefill}: the config fields plus wiring. */
export interface PrefillOptions extends PrefillConfigInput {
  /** Workspace to read prefill files from. Default: `run.workspace` (no workspace → off). */
  workspace?: string
  /**
   * Where a native prefill goes: `'turn'` sets `turn.prefill` (formatters render it as the open
   * assistant turn); `'messages'` appends an assistant message to `turn.messages` instead, for
   * renderers that only read messages. Default `'turn'`.
   */
  placement?: 'turn' | 'messages'
  /**
   * Whether extended thinking is on for this turn (no native prefill then; `onUnsupported`
   * applies). Default: `turn.thinking?.enabled`.
   */
  isThinking?: (turn: TurnContext) => boolean
  /** Builds the `'instruct'` instruction. Default: `defaultInstruction`. */
  instruction?: (prefill: string) => string
  /** File cache. Default: a new one per middleware. */
  cache?: PrefillCache
}

/**
 * The middleware returned by {@link prefill}: a core `ContextMiddleware` (use it wherever one is
 * expected) that also exposes its validated `config` and always has all three hooks.
 */
export interface PrefillMiddleware extends ContextMiddleware {
  /** Always `'prefill'`. */
  readonly name: 'prefill'
  /** The validated configuration, defaults applied. */
  readonly config: PrefillConfig
  /** Read the prefill and add it to the turn (as the reply's start, or as an instruction). */
  prepare(turn: TurnContext, run: RunInfo): Promise<TurnContext>
  /**
   * With `steps: 'every'`, open the reply of each step after the first with the run's native
   * prefill again (`turn.prefill`, recording `session:prefill-injected` with the step); with
   * `'first'`, the turn as given.
   */
  prepareStep(turn: TurnContext, run: RunInfo, info: StepInfo): TurnContext
  /** Put the prefill back in front of the reply's text, so the saved reply reads whole. */
  finalize(
    reply: AssistantMessage,
    turn: TurnContext,
    run: RunInfo,
    info?: FinalizeInfo,
  ): AssistantMessage
  /**
   * The core `recover` hook: the provider failed a request built from `turn`. For the "does not
   * support assistant message prefill" 400 (see `isPrefillRejection`) on a turn that carries this
   * middleware's native prefill, returns the turn to retry with — the prefill moved into the last
   * user turn (`'instruct'`) or dropped (`'skip'`), and `model.supportsPrefill: false` so the loop
   * picks a format without a trailing assistant turn — once per run, recording
   * `session:prefill-fallback`; the model is then treated as prefill-less by later `prepare`
   * calls of this middleware. Throws {@link PrefillRejectedError} when `onUnsupported` is
   * `'error'`. Returns `undefined` for any other error, or when this run already fell back.
   */
  recover(error: unknown, turn: TurnContext, run: RunInfo): TurnContext | undefined
}

const OptionsSchema = PrefillConfigSchema.extend({
  workspace: z.string().min(1).optional(),
  placement: z.enum(['turn', 'messages']).default('turn'),
  isThinking: z.custom<(turn: TurnContext) => boolean>((v) => typeof v === 'function').optional(),
  instruction: z.custom<(prefill: string) => string>((v) => typeof v === 'function').optional(),
  cache: z.custom<PrefillCache>((v) => typeof v === 'object' && v !== null).optional(),
})

function defaultIsThinking(turn: TurnContext): boolean {
  return turn.thinking?.enabled === true
}

function readState(run: RunInfo): PrefillState | undefined {
  const parsed = PrefillStateSchema.safeParse(getRunState(run, PREFILL_STATE_KEY))
  return parsed.success ? parsed.data : undefined
}

/** What one {@link prefill} middleware works with: its options, and its memory across runs. */
interface Prefiller {
  config: PrefillConfig
  workspace: string | undefined
  placement: 'turn' | 'messages'
  thinkingOf: (turn: TurnContext) => boolean
  cache: PrefillCache
  loader: DynamicPrefillLoader
  /** What `applyPrefill` and `fallback` are given besides the text and model. */
  applyOptions: {
    onUnsupported: PrefillConfig['onUnsupported']
    instruction?: (p: string) => string
  }
  /** Models the provider refused a prefill for: this instance's memory across its runs. */
  rejectingModels: Set<string>
}

/** Check the options and set up what the middleware keeps. */
function createPrefiller(options: PrefillOptions): Prefiller {
  const parsed = parseWith(OptionsSchema, options, 'prefill options')
  const { workspace, placement, isThinking, instruction, cache, ...config } = parsed
  return {
    config,
    workspace,
    placement,
    thinkingOf: isThinking ?? defaultIsThinking,
    cache: cache ?? createPrefillCache(),
    loader: new DynamicPrefillLoader(),
    applyOptions: { onUnsupported: config.onUnsupported, ...(instruction ? { instruction } : {}) },
    rejectingModels: new Set(),
  }
}

/** `model` as this middleware knows it: prefill-less once the provider refused one for it. */
function effectiveModel(p: Prefiller, model: ModelInfo): ModelInfo {
  return p.rejectingModels.has(model.id) ? { ...model, supportsPrefill: false } : model
}

/** The turn `applied` describes, with what was sent noted in the run's state. */
function buildTurn(
  p: Prefiller,
  turn: TurnContext,
  run: RunInfo,
  applied: AppliedPrefill,
  source: string | undefined,
  recovered?: boolean,
): TurnContext {
  const { prefill: _previous, ...rest } = turn
  if ((applied.mode !== 'native' && applied.mode !== 'instruct') || !applied.sent) {
    setRunState(run, PREFILL_STATE_KEY, undefined)
    return { ...rest, messages: applied.messages }
  }
  const state: PrefillState = {
    text: applied.sent,
    mode: applied.mode,
    placement: p.placement,
    ...(source === undefined ? {} : { source }),
    ...(recovered ? { recovered } : {}),
  }
  setRunState(run, PREFILL_STATE_KEY, state)
  const next: TurnContext = { ...rest }
  if (applied.mode === 'native' && p.placement === 'turn') {
    next.messages = turn.messages
    next.prefill = applied.sent
  } else {
    next.messages = applied.messages
  }
  return next
}

/** The prefill of this turn: an explicit `turn.prefill`, else the workspace's (a warning when unreadable). */
async function findText(
  p: Prefiller,
  turn: TurnContext,
  run: RunInfo,
): Promise<{ text?: string; source?: string }> {
  const explicit = turn.prefill?.trim()
  if (explicit) return { text: explicit, source: 'turn.prefill' }
  const dir = p.workspace ?? run.workspace
  if (!dir) return {}
  const context = {
    model: turn.model,
    history: turn.messages,
    vars: turn.vars,
    runId: run.runId,
    ...(run.sessionId === undefined ? {} : { sessionId: run.sessionId }),
    ...(run.signal === undefined ? {} : { signal: run.signal }),
  }
  const load = await loadWithConfig(dir, p.config, context, p.cache, p.loader)
  if (load.warning) recordWarning(run, 'prefill', load.warning)
  return load.text === undefined ? {} : { text: load.text, source: load.source ?? 'unknown' }
}

/** The `prepare` hook: add the prefill the model can take, and say so in the trace. */
async function prepareTurn(p: Prefiller, turn: TurnContext, run: RunInfo): Promise<TurnContext> {
  if (!p.config.enabled) return turn
  const { text, source } = await findText(p, turn, run)
  if (text === undefined) {
    setRunState(run, PREFILL_STATE_KEY, undefined)
    if (turn.prefill === undefined) return turn
    const { prefill: _blank, ...rest } = turn
    return rest
  }
  const applied = applyPrefill(turn.messages, text, effectiveModel(p, turn.model), {
    ...p.applyOptions,
    thinking: p.thinkingOf(turn),
  })
  const next = buildTurn(p, turn, run, applied, source)
  if (applied.mode === 'skip') {
    run.trace.record(PREFILL_TRACE_STAGES.skipped, {
      reason: applied.reason,
      model: turn.model.id,
      source,
    })
    return next
  }
  run.trace.record(PREFILL_TRACE_STAGES.injected, {
    prefill: applied.sent,
    mode: applied.mode,
    placement: applied.mode === 'native' ? p.placement : 'messages',
    ...(applied.reason === undefined ? {} : { reason: applied.reason }),
    source,
    model: turn.model.id,
    step: 1,
    messages: sentMessages(next),
  })
  return next
}

/** The messages as sent with `next`: a native prefill in `turn.prefill` is their last message. */
function sentMessages(next: TurnContext, extra: readonly Message[] = []): Message[] {
  const messages = [...next.messages, ...extra]
  return next.prefill === undefined
    ? messages
    : [...messages, textMessage('assistant', next.prefill)]
}

/** The `prepareStep` hook: with `steps: 'every'`, the run's native prefill opens this step too. */
function prepareStepTurn(
  p: Prefiller,
  turn: TurnContext,
  run: RunInfo,
  info: StepInfo,
): TurnContext {
  if (p.config.steps !== 'every' || info.step <= 1) return turn
  const state = readState(run)
  // an instruction (mode 'instruct') is in the turn's user message already, on every step
  if (state?.mode !== 'native' || effectiveModel(p, turn.model).supportsPrefill === false) {
    return turn
  }
  const next: TurnContext = { ...turn, prefill: state.text }
  run.trace.record(PREFILL_TRACE_STAGES.injected, {
    prefill: state.text,
    mode: state.mode,
    placement: 'turn',
    source: state.source,
    model: turn.model.id,
    step: info.step,
    messages: sentMessages(next, info.newMessages),
  })
  return next
}

/** The `finalize` hook: strip the prefill from the first reply (or keep it whole: `ephemeral: false`). */
function finalizeReply(
  p: Prefiller,
  reply: AssistantMessage,
  run: RunInfo,
  info: FinalizeInfo | undefined,
): AssistantMessage {
  // with steps 'first' the prefill goes with the first model call only: later replies never carry it
  const step = info?.step ?? 1
  if (step !== 1 && p.config.steps !== 'every') return reply
  const state = readState(run)
  if (!state) return reply
  if (!p.config.ephemeral) {
    if (state.mode !== 'native') return reply
    const content = ensurePrefillInContent(reply.content, state.text)
    run.trace.record(PREFILL_TRACE_STAGES.kept, { prefill: state.text, mode: state.mode })
    return { ...reply, content }
  }
  const result = stripPrefillFromContent(reply.content, state.text)
  run.trace.record(PREFILL_TRACE_STAGES.stripped, {
    original: result.original,
    stripped: result.stripped,
    match: result.match,
    mode: state.mode,
    stopReason: reply.stopReason,
    step,
  })
  return result.match === 'none' ? reply : { ...reply, content: result.content }
}

/** The `recover` hook (see {@link PrefillMiddleware.recover}). */
function recoverTurn(
  p: Prefiller,
  error: unknown,
  turn: TurnContext,
  run: RunInfo,
): TurnContext | undefined {
  if (!isPrefillRejection(error)) return undefined
  p.rejectingModels.add(turn.model.id)
  const state = readState(run)
  if (state?.mode !== 'native') return undefined
  // only a turn that carries this run's native prefill is ours to fix
  const carried =
    state.placement === 'turn'
      ? turn.prefill === state.text
      : turn.messages.at(-1)?.role === 'assistant'
  if (!carried) return undefined
  if (p.config.onUnsupported === 'error') {
    throw new PrefillRejectedError(
      `Model ${turn.model.id} rejected the assistant prefill (onUnsupported: 'error')`,
      { cause: error, details: { model: turn.model.id, by: 'provider' } },
    )
  }
  if (state.recovered) return undefined
  return fallbackTurn(p, error, turn, run, state)
}

/** The turn to retry with after a prefill was refused: the prefill as an instruction, or none. */
function fallbackTurn(
  p: Prefiller,
  error: unknown,
  turn: TurnContext,
  run: RunInfo,
  state: PrefillState,
): TurnContext {
  let messages: Message[] = turn.messages
  if (state.placement === 'messages' && turn.messages.at(-1)?.role === 'assistant') {
    messages = turn.messages.slice(0, -1)
  }
  const model = { ...turn.model, supportsPrefill: false }
  const applied = fallback(messages, state.text, model, 'model', p.applyOptions)
  const next = buildTurn(p, { ...turn, model }, run, applied, state.source, true)
  run.trace.record(PREFILL_TRACE_STAGES.fallback, {
    model: turn.model.id,
    mode: applied.mode,
    error: describeError(error),
    messages: next.messages,
  })
  return next
}

/**
 * The prefill middleware: `prepare` reads the workspace's prefill (`PREFILL.md`, a per-model file
 * or a dynamic module; an explicit `turn.prefill` wins) and adds it to the turn the way the model
 * can take it, recording `session:prefill-injected`; with `steps: 'every'`, `prepareStep` opens
 * every later step's reply with it too; `finalize` strips it from each reply it opened (the
 * first step's, or every step's) — whatever the stop reason,
 * `aborted` and `error` included — recording `session:prefill-stripped`, so it never reaches
 * saved history; `recover` falls back when the provider rejects the prefill. What it sent is kept
 * in `run.state` under {@link PREFILL_STATE_KEY}. Read failures are warnings in `run.trace` and
 * the turn goes on without a prefill. Throws a `ValidationError` for invalid options.
 */
export function prefill(options: PrefillOptions = {}): PrefillMiddleware {
  const p = createPrefiller(options)
  return {
    name: 'prefill',
    config: p.config,
    prepare: (turn, run) => prepareTurn(p, turn, run),
    prepareStep: (turn, run, info) => prepareStepTurn(p, turn, run, info),
    finalize: (reply, _turn, run, info) => finalizeReply(p, reply, run, info),
    recover: (error, turn, run) => recoverTurn(p, error, turn, run),
  }
}
