// The check of `runAgent`'s options, which is also where their type comes from: one shape in
// four groups (the call, the session, the run's pacing, the steps), joined by `RunAgentOptionsCheck`.
import {
  type ContextMiddleware,
  isSessionId,
  MessageListCheck,
  ModelInfoCheck,
  SectionListCheck,
  type SessionStore,
  type TokenCounter,
  type Trace,
} from '@contextkit/core'
import { CACHE_MODES } from '@contextkit/core/cache'
import * as c from '@contextkit/core/check'
import type { Formatter } from '@contextkit/formatters'
import type * as z from 'zod'
import { CompactionOptionsCheck } from '../compaction/compaction-options.js'
import { isZodSchema } from '../output/output-schema.js'
import { type PlanOptions, PlanOptionsCheck } from '../plan/plan.js'
import type { ModelProvider, ThinkingOptions } from '../provider/contract.js'
import { ToolChoiceCheck } from '../provider/tool-choice.js'
import type { SessionOptions } from '../session/session-run.js'
import type { PrepareStep } from '../step/step-control.js'
import type { StopWhen } from '../stop/stop-conditions.js'
import type { AgentTool } from '../tools/define-tool.js'
import type { LoopGuardOptions } from '../tools/loop-guard.js'

/** A value of type `T` that passes `check` (an object or a function: a provider, a store, …). */
const shaped = <T>(what: string, check: (v: Record<string, unknown>) => boolean) =>
  c.custom<T>(
    (v) =>
      (typeof v === 'object' || typeof v === 'function') &&
      v !== null &&
      check(v as Record<string, unknown>),
    what,
    ['object', 'function'],
  )

/** A function, typed as `T`. */
const fn = <T>(what = 'a function') =>
  c.custom<T>((v) => typeof v === 'function', what, ['function'])

const positiveInt = () => c.number({ int: true, min: 1 })

/** A person's decision in `resume.approvals`. */
const ApprovalAnswerCheck = /* @__PURE__ */ c.lazy(() =>
  c.custom<ApprovalAnswer>(
    (v) => {
      if (typeof v !== 'object' || v === null || Array.isArray(v)) return false
      const keys = Object.keys(v)
      const { approve, reason } = v as { approve?: unknown; reason?: unknown }
      if (approve === true) return keys.length === 1
      return (
        approve === false &&
        (reason === undefined || typeof reason === 'string') &&
        keys.every((k) => k === 'approve' || k === 'reason')
      )
    },
    '{ approve: true } or { approve: false, reason?: string }',
    ['object'],
  ),
)

/** The model call: provider, model, what it reads (system, messages or prompt, tools), the middleware, the formatter, when to stop, the reply size and thinking. */
const callShape = () => ({
  /** The model behind an API (`anthropicProvider({ client })`, or your own `ModelProvider`). */
  provider: shaped<ModelProvider>('a ModelProvider', (p) => typeof p.stream === 'function'),
  /** Model id (capabilities from core's table) or a core `ModelInfo`. */
  model: c.union(c.string({ min: 1 }), ModelInfoCheck),
  /** System prompt: a string (one stable section) or core `Section`s. Default: none. */
  system: c.optional(c.union(c.string(), SectionListCheck)),
  /**
   * The conversation: history plus the new user turn. With `session`, only the new messages
   * (the stored history is loaded and put in front); they are saved with the run's replies.
   * Give this or `prompt` (a `resume` run may give neither).
   */
  messages: c.optional(MessageListCheck),
  /** The user's message as text: `prompt: 'Hi'` is `messages: [textMessage('user', 'Hi')]`. */
  prompt: c.optional(c.string({ min: 1 })),
  /** Tools the model may call (`defineTool`). Default: none. */
  tools: c.optional(
    c.array(
      shaped<AgentTool>(
        'a tool made with defineTool',
        (t) =>
          typeof t.name === 'string' &&
          typeof t.execute === 'function' &&
          typeof t.input === 'object',
      ),
    ),
  ),
  /** Core middleware, `prepare` in order, `finalize` in reverse. Default: none. */
  middleware: c.optional(
    c.array(shaped<ContextMiddleware>('a ContextMiddleware', (m) => typeof m.name === 'string')),
  ),
  /**
   * The preferred prompt format; `formatterFor` swaps in `NativeFormatter` for a model that
   * cannot take it. `'anthropic-xml'` is short for `new AnthropicXmlFormatter()`; `'native'` and
   * `null` (no prefill, native mode) for `new NativeFormatter()`. Default: `NativeFormatter`.
   */
  formatter: c.optional(
    c.union(
      shaped<Formatter>('a formatter', (f) => typeof f.buildMessages === 'function'),
      c.literal('anthropic-xml', 'native', null),
    ),
  ),
  /** When to stop, any of them ("or"). `maxSteps(20)` is added unless a `maxSteps` is given. */
  stopWhen: c.optional(
    c.custom<StopWhen>(
      (v) => typeof v === 'function' || (typeof v === 'object' && v !== null),
      'a stop condition, a function, or a list of them',
      ['function', 'object', 'array'],
    ),
  ),
  /** `max_tokens` of each call. Default `4096`, capped at the model's output limit. */
  maxTokens: c.optional(positiveInt()),
  /** Extended thinking for every call. Default: off. */
  thinking: c.optional(
    c.strictObject({
      enabled: c.boolean(),
      budgetTokens: c.optional(positiveInt()),
    }) as c.Check<ThinkingOptions>,
  ),
})

/** Where the run lives: the workspace, the stored session and its lease wait, resuming a paused run. */
const sessionShape = () => ({
  /** The agent's workspace directory (core `RunInfo.workspace`, read by middleware). */
  workspace: c.optional(c.string({ min: 1 })),
  /** Load the history from, and save the new messages to, a core `SessionStore`. */
  session: c.optional(
    c.strictObject({
      store: shaped<SessionStore>(
        'a SessionStore',
        (s) => typeof s.load === 'function' && typeof s.append === 'function',
      ),
      id: c.custom<string>(
        isSessionId,
        'a session id: 1-200 characters of [A-Za-z0-9._-], starting alphanumeric, without ".."',
        ['string'],
      ),
      history: c.optional(
        c.strictObject({
          turns: c.optional(positiveInt()),
          tokens: c.optional(c.number({ min: 0 })),
        }),
      ),
    }) as c.Check<SessionOptions>,
  ),
  /**
   * How long a run waits for its session while another run holds it (needs `session`; the
   * store must keep leases, as `jsonlSessionStore` and `postgresSessionStore` do), 0 to
   * 2^31 − 1 ms; then it ends with `stopReason: 'error'` and core's `SessionBusyError` (code
   * `session_busy`, naming the holder's run id, host and pid). Default `60000` (core's
   * `DEFAULT_SESSION_WAIT_MS`: twice a lease's default lifetime, so a crashed holder's lease
   * always expires within one wait).
   */
  sessionWaitMs: c.optional(c.number({ int: true, min: 0, max: 2_147_483_647 })),
  /**
   * Take up the session's unfinished last run (needs `session`): `true` after a crash, or
   * `{ approvals }` to decide the calls it paused on (`stopReason: 'awaiting_approval'`), by
   * tool call id: `{ approve: true }` runs the call, `{ approve: false, reason? }` sends the
   * model an error result with the reason. A run given new messages on a session whose last
   * run is unfinished takes it up first anyway (calls still waiting are then denied). Default:
   * off.
   */
  resume: c.optional(
    c.union(
      c.literal(true),
      c.strictObject({
        approvals: c.optional(c.record(ApprovalAnswerCheck, c.string({ min: 1 }))),
      }),
    ),
  ),
})

/** How the run is watched and paced: trace, abort signal, tool concurrency and the loop guard. */
const runShape = () => ({
  /** Where the loop and the middleware record what happens. Default: no trace. */
  trace: c.optional(shaped<Trace>('a Trace', (t) => typeof t.record === 'function')),
  /** Aborts the run (same as `abort()`). */
  signal: c.optional(
    c.custom<AbortSignal>((v) => v instanceof AbortSignal, 'an AbortSignal', ['object']),
  ),
  /** Tool calls of one reply run at the same time. Default: all of them (parallel). */
  toolConcurrency: c.optional(c.union(positiveInt(), c.literal(Number.POSITIVE_INFINITY))),
  /**
   * Stop (or nudge) when the same call repeats. Default `{ maxRepeats: 3, action: 'stop' }`;
   * `false` turns it off.
   */
  loopGuard: c.optional(
    c.union(
      c.literal(false),
      c.strictObject({
        maxRepeats: c.optional(c.number({ int: true, min: 2 })),
        action: c.optional(c.literal('stop', 'nudge')),
        nudge: c.optional(
          c.union(c.string({ min: 1 }), fn<NonNullable<LoopGuardOptions['nudge']>>()),
        ),
      }),
    ) as c.Check<LoopGuardOptions | false>,
  ),
})

/** Per step: the plan phase, budget and token counting, variables, run id, caching, compaction, tool-result size, tool choice, `prepareStep` and the structured output. */
const stepShape = () => ({
  /**
   * Plan phase: one call first that proceeds with a plan or asks the user. `true` for defaults.
   * Default: off.
   */
  plan: c.optional(c.union(c.literal(true), PlanOptionsCheck) as c.Check<PlanOptions | true>),
  /**
   * Token budget for system + user sections. Default: the context window minus the reply,
   * messages and tools.
   */
  budgetTokens: c.optional(c.number({ int: true, min: 0 })),
  /** Token counter for budgets and history limits. Default: core `createTokenCounter({ model })`. */
  tokenCounter: c.optional(
    shaped<TokenCounter>('a TokenCounter', (t) => typeof t.count === 'function'),
  ),
  /** Data for tools and sandboxes (core `TurnContext.vars`). Default `{}`. */
  vars: c.optional(c.record(c.unknown())),
  /** The run's id (core `RunInfo.runId`). Default: a random `run_…` id. */
  runId: c.optional(c.string({ min: 1 })),
  /**
   * Prompt-cache breakpoints. `'auto'` (default): one after the stable system sections (stable
   * sections are sent before volatile ones), one on the tool definitions when they reach
   * `TOOLS_CACHE_MIN_TOKENS`, and a rolling one on the last message, so each call reads what
   * the previous one wrote; at most four per request, the messages' own `cacheBreakpoint`s
   * included (see `placeCacheBreakpoints` for the precedence). `'off'`: the loop sends no
   * breakpoint of its own (only the messages' own `cacheBreakpoint`s).
   */
  cache: c.optional(c.literal(...CACHE_MODES)),
  /**
   * Summarize older history when a request nears the context window (see
   * `CompactionOptions`). Default: on for runs with a `session`, off otherwise; `false` turns
   * it off.
   */
  compaction: c.optional(CompactionOptionsCheck),
  /**
   * A tool result longer than this many tokens is sent as its head and tail with a marker
   * saying how much was left out (the run's messages and the session keep it whole). Default:
   * a quarter of the context window.
   */
  toolResultMaxTokens: c.optional(positiveInt()),
  /**
   * Which tools the model may or must call in every step: `'auto'` (default), `'any'`,
   * `'none'` or `{ tool: name }` (one of `tools`). A forced choice applies to every step; force
   * one step with `prepareStep`. See the README for what each provider and format sends.
   */
  toolChoice: c.optional(ToolChoiceCheck),
  /**
   * Called before every model call of the agent phase (`step` from 0): return the call's
   * `model`, `activeTools`, `toolChoice`, `system` or `messages` (for that call only), or
   * `undefined`.
   */
  prepareStep: c.optional(fn<PrepareStep>()),
  /**
   * A zod schema for the run's final structured output: after the model's last reply, it is
   * asked for the answer in this shape (the provider's `outputMode`), validated (one repair
   * call), and returned as `result.output`. Default: none.
   */
  output: c.optional(c.custom<z.ZodType>(isZodSchema, 'a zod schema', ['object'])),
})

/**
 * The check of `runAgent`'s options: the single source of both the check and the type
 * ({@link RunAgentOptions} is inferred from it), without zod, so importing the loop never loads
 * it. Unknown keys are refused, so a typo or an option of another version is an error rather
 * than silently ignored (`systemPrompt`, the original design's name, is named `system`).
 */
export const RunAgentOptionsCheck = /* @__PURE__ */ c.lazy(() =>
  c.strictObject(
    { ...callShape(), ...sessionShape(), ...runShape(), ...stepShape() },
    { renamed: { systemPrompt: 'system' } },
  ),
)

/** A person's decision on a call that waits for approval (`resume: { approvals }`). */
export type ApprovalAnswer = { approve: true } | { approve: false; reason?: string }

/** Options of `runAgent`. `provider`, `model`, and `prompt` or `messages` are required. */
export type RunAgentOptions = c.Infer<typeof RunAgentOptionsCheck>
