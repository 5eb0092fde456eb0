import {
  type ContextMiddleware,
  getModelInfo,
  type Message,
  MessageSchema,
  type ModelInfo,
  ModelInfoSchema,
  parseWith,
  type Section,
  SectionSchema,
  SessionIdSchema,
  type TokenCounter,
  type Trace,
  ValidationError,
} from '@contextkit/core'
import type { Formatter } from '@contextkit/formatters'
import * as z from 'zod'
import { CACHE_MODES, type CacheMode } from './cache-breakpoints.js'
import type { AgentTool } from './define-tool.js'
import type { LoopGuardOptions } from './loop-guard.js'
import type { AnalyzeOptions } from './plan.js'
import type { ModelProvider, ThinkingOptions } from './provider.js'
import type { SessionOptions } from './session-run.js'
import { type StopCondition, type StopWhen, stopConditions } from './stop-conditions.js'

/** Options of `runAgent`. Only `provider`, `model` and `messages` are required. */
export interface RunAgentOptions {
  /** The model behind an API (`anthropicProvider({ client })`, or your own `ModelProvider`). */
  provider: ModelProvider
  /** Model id (capabilities from core's table) or a core `ModelInfo`. */
  model: string | ModelInfo
  /** System prompt: a string (one stable section) or core `Section`s. Default: none. */
  system?: string | readonly Section[]
  /**
   * The conversation: history plus the new user turn. With `session`, only the new messages
   * (the stored history is loaded and put in front); they are saved with the run's replies.
   */
  messages: readonly Message[]
  /** Tools the model may call (`defineTool`). Default: none. */
  tools?: readonly AgentTool[]
  /** Core middleware, `prepare` in order, `finalize` in reverse. Default: none. */
  middleware?: readonly ContextMiddleware[]
  /**
   * The preferred prompt format; `formatterFor` swaps in `NativeFormatter` for a model that cannot
   * take it. Default: `NativeFormatter`.
   */
  formatter?: Formatter
  /** When to stop, any of them ("or"). `maxTurns(20)` is added unless a `maxTurns` is given. */
  stopWhen?: StopWhen
  /** `max_tokens` of each call. Default `4096`, capped at the model's output limit. */
  maxTokens?: number
  /** Extended thinking for every call. Default: off. */
  thinking?: ThinkingOptions
  /** The agent's workspace directory (core `RunInfo.workspace`, read by middleware). */
  workspace?: string
  /** Load the history from, and save the new messages to, a core `SessionStore`. */
  session?: SessionOptions
  /** Where the loop and the middleware record what happens. Default: no trace. */
  trace?: Trace
  /** Aborts the run (same as `abort()`). */
  signal?: AbortSignal
  /** Tool calls of one reply run at the same time. Default: all of them (parallel). */
  toolConcurrency?: number
  /** Stop (or nudge) when the same call repeats. Default `{ maxRepeats: 3, action: 'stop' }`; `false` turns it off. */
  loopGuard?: LoopGuardOptions | false
  /** Plan phase: one call first that proceeds with a plan or asks the user. `true` for defaults. Default: off. */
  analyze?: AnalyzeOptions | true
  /** Token budget for system + user sections. Default: the context window minus the reply, messages and tools. */
  budgetTokens?: number
  /** Token counter for budgets and history limits. Default: core `createTokenCounter({ model })`. */
  tokenCounter?: TokenCounter
  /** Data for tools and sandboxes (core `TurnContext.vars`). Default `{}`. */
  vars?: Record<string, unknown>
  /** The run's id (core `RunInfo.runId`). Default: a random `run_…` id. */
  runId?: string
  /**
   * Prompt-cache breakpoints. `'auto'` (default): one after the stable system sections (stable
   * sections are sent before volatile ones), one on the tool definitions when they reach
   * `TOOLS_CACHE_MIN_TOKENS`, and a rolling one on the last message, so each call reads what the
   * previous one wrote; at most four per request, the messages' own `cacheBreakpoint`s included
   * (see `placeCacheBreakpoints` for the precedence). `'off'`: the loop sends no breakpoint of
   * its own (only the messages' own `cacheBreakpoint`s).
   */
  cache?: CacheMode
}

const fn = (what: string) =>
  z.custom<(...args: never[]) => unknown>((v) => typeof v === 'function', `expected ${what}`)
const object = <T>(what: string, check: (v: Record<string, unknown>) => boolean) =>
  z.custom<T>(
    (v) => typeof v === 'object' && v !== null && check(v as Record<string, unknown>),
    `expected ${what}`,
  )

const ToolSchema = object<AgentTool>('a tool made with defineTool', (t) => {
  return (
    typeof t.name === 'string' && typeof t.execute === 'function' && typeof t.input === 'object'
  )
})

const OptionsSchema = z.object({
  provider: object<ModelProvider>('a ModelProvider', (p) => typeof p.stream === 'function'),
  model: z.union([z.string().min(1), ModelInfoSchema]),
  system: z.union([z.string(), SectionSchema.array()]).optional(),
  messages: MessageSchema.array(),
  tools: ToolSchema.array().optional(),
  middleware: object<ContextMiddleware>('a ContextMiddleware', (m) => typeof m.name === 'string')
    .array()
    .optional(),
  formatter: object<Formatter>(
    'a formatter',
    (f) => typeof f.buildMessages === 'function',
  ).optional(),
  stopWhen: z.unknown().optional(),
  maxTokens: z.number().int().positive().optional(),
  thinking: z
    .object({ enabled: z.boolean(), budgetTokens: z.number().int().positive().optional() })
    .optional(),
  workspace: z.string().min(1).optional(),
  session: z
    .object({
      store: object(
        'a SessionStore',
        (s) => typeof s.load === 'function' && typeof s.append === 'function',
      ),
      id: SessionIdSchema,
      history: z
        .object({
          turns: z.number().int().positive().optional(),
          tokens: z.number().nonnegative().optional(),
        })
        .optional(),
    })
    .optional(),
  trace: object<Trace>('a Trace', (t) => typeof t.record === 'function').optional(),
  signal: z
    .custom<AbortSignal>((v) => v instanceof AbortSignal, 'expected an AbortSignal')
    .optional(),
  toolConcurrency: z.number().int().positive().or(z.literal(Number.POSITIVE_INFINITY)).optional(),
  loopGuard: z
    .union([
      z.literal(false),
      z.object({
        maxRepeats: z.number().int().min(2).optional(),
        action: z.enum(['stop', 'nudge']).optional(),
        nudge: z.union([z.string().min(1), fn('a function')]).optional(),
      }),
    ])
    .optional(),
  analyze: z
    .union([
      z.literal(true),
      z.object({
        system: z.string().min(1).optional(),
        model: z.union([z.string().min(1), ModelInfoSchema]).optional(),
        maxTokens: z.number().int().positive().optional(),
      }),
    ])
    .optional(),
  budgetTokens: z.number().int().nonnegative().optional(),
  tokenCounter: object<TokenCounter>(
    'a TokenCounter',
    (c) => typeof c.count === 'function',
  ).optional(),
  vars: z.record(z.string(), z.unknown()).optional(),
  runId: z.string().min(1).optional(),
  cache: z.enum(CACHE_MODES).optional(),
})

/** Options after checking, with defaults resolved. */
export interface ResolvedOptions {
  raw: RunAgentOptions
  model: ModelInfo
  system: Section[]
  maxTokens: number
  tools: Map<string, AgentTool>
  conditions: StopCondition[]
  concurrency: number
  analyze: AnalyzeOptions | undefined
  cache: CacheMode
}

/**
 * Check `runAgent`'s options with zod (a `ValidationError` naming every bad path) and resolve the
 * defaults. Tool names must be unique.
 */
export function resolveOptions(options: RunAgentOptions): ResolvedOptions {
  parseWith(OptionsSchema, options, 'runAgent options')
  const model = typeof options.model === 'string' ? getModelInfo(options.model) : options.model
  const system: Section[] =
    typeof options.system === 'string'
      ? options.system === ''
        ? []
        : [{ id: 'system', text: options.system, priority: 1_000_000, cache: 'stable' }]
      : [...(options.system ?? [])]
  const tools = new Map<string, AgentTool>()
  for (const tool of options.tools ?? []) {
    if (tools.has(tool.name)) {
      throw new ValidationError(
        `Invalid runAgent options: tools: the name "${tool.name}" is used twice`,
        [{ path: 'tools', message: `duplicate tool name "${tool.name}"` }],
      )
    }
    tools.set(tool.name, tool)
  }
  return {
    raw: options,
    model,
    system,
    maxTokens: Math.min(options.maxTokens ?? 4096, model.maxOutput),
    tools,
    conditions: stopConditions(options.stopWhen),
    concurrency: options.toolConcurrency ?? Number.POSITIVE_INFINITY,
    analyze: options.analyze === true ? {} : options.analyze,
    cache: options.cache ?? 'auto',
  }
}
