// `runAgent`'s options resolved: every default filled in, the tools by name, the session and
// the output spec ready (the check and the type are in option-checks.ts).
import {
  type ContextMiddleware,
  getModelInfo,
  type Message,
  type ModelInfo,
  parseWith,
  type Section,
  type TokenCounter,
  type Trace,
  textMessage,
  ValidationError,
} from '@contextkit/core'
import type { CacheMode } from '@contextkit/core/cache'
import { DEFAULT_SESSION_WAIT_MS } from '@contextkit/core/store'
import { AnthropicXmlFormatter, type Formatter } from '@contextkit/formatters'
import type * as z from 'zod'
import {
  defaultToolResultMaxTokens,
  type ResolvedCompaction,
  resolveCompaction,
} from '../compaction/compaction-options.js'
import { type OutputSpec, outputSpec } from '../output/output-schema.js'
import type { PlanOptions } from '../plan/plan.js'
import type { ModelProvider, ThinkingOptions } from '../provider/contract.js'
import type { ToolChoice } from '../provider/tool-choice.js'
import type { SessionOptions } from '../session/session-run.js'
import { checkToolChoice, type PrepareStep, systemSections } from '../step/step-control.js'
import { type StopCondition, stopConditions } from '../stop/stop-conditions.js'
import type { AgentTool } from '../tools/define-tool.js'
import type { LoopGuardOptions } from '../tools/loop-guard.js'
import { type ApprovalAnswer, type RunAgentOptions, RunAgentOptionsCheck } from './option-checks.js'

/** Options after checking, with every default resolved: the loop reads only these. */
export interface ResolvedOptions {
  provider: ModelProvider
  model: ModelInfo
  system: Section[]
  messages: readonly Message[]
  tools: Map<string, AgentTool>
  middleware: readonly ContextMiddleware[]
  formatter: Formatter | undefined
  conditions: StopCondition[]
  maxTokens: number
  thinking: ThinkingOptions | undefined
  workspace: string | undefined
  session: SessionOptions | undefined
  /** How long to wait for a busy session's lease, ms. */
  sessionWaitMs: number
  /** The decisions given with `resume`, by tool call id (`{}` for `resume: true`); off: `undefined`. */
  resume: { approvals: Readonly<Record<string, ApprovalAnswer>> } | undefined
  trace: Trace | undefined
  concurrency: number
  loopGuard: LoopGuardOptions | false | undefined
  plan: PlanOptions | undefined
  budgetTokens: number | undefined
  tokenCounter: TokenCounter | undefined
  vars: Record<string, unknown>
  cache: CacheMode
  compaction: ResolvedCompaction | undefined
  toolResultMaxTokens: number
  /** Whether `toolResultMaxTokens` is the default (a share of the window, following the window in force). */
  toolResultFollowsWindow: boolean
  toolChoice: ToolChoice | undefined
  prepareStep: PrepareStep | undefined
  output: OutputSpec | undefined
}

function toolMap(tools: readonly AgentTool[] | undefined): Map<string, AgentTool> {
  const map = new Map<string, AgentTool>()
  for (const tool of tools ?? []) {
    if (map.has(tool.name)) {
      throw new ValidationError(
        `Invalid runAgent options: tools: the name "${tool.name}" is used twice`,
        [{ path: 'tools', message: `duplicate tool name "${tool.name}"` }],
      )
    }
    map.set(tool.name, tool)
  }
  return map
}

/** A formatter given as itself; `'native'` and `null` are the default (`undefined`). */
function formatterOf(formatter: Formatter | 'native' | null | undefined): Formatter | undefined {
  return formatter === 'native' || formatter === null ? undefined : formatter
}

/**
 * Check `runAgent`'s options against {@link RunAgentOptionsCheck} (a `ValidationError` naming
 * every bad path and every unknown key) and resolve the defaults. Tool names must be unique.
 */
export function resolveOptions(options: RunAgentOptions): ResolvedOptions {
  const o = parseWith(RunAgentOptionsCheck, options, 'runAgent options')
  if (o.sessionWaitMs !== undefined && o.session === undefined) {
    throw new ValidationError(
      'Invalid runAgent options: sessionWaitMs: only a run with a session waits for one (give `session`)',
      [{ path: 'sessionWaitMs', message: 'needs the session option' }],
    )
  }
  if (o.resume !== undefined && o.session === undefined) {
    throw new ValidationError(
      'Invalid runAgent options: resume: a run can only be resumed from a session (give `session`)',
      [{ path: 'resume', message: 'needs the session option' }],
    )
  }
  const messages = conversation(options, o.resume !== undefined)
  // the caller's own model, system and messages are used as given (the check does not copy them)
  const tools = toolMap(o.tools)
  checkToolChoice(o.toolChoice, [...tools.keys()], 'runAgent options: toolChoice')
  const model =
    typeof options.model === 'string' ? getModelInfo(options.model) : (options.model as ModelInfo)
  return {
    provider: o.provider,
    model,
    system: systemSections(options.system as string | Section[] | undefined),
    messages,
    tools,
    middleware: o.middleware ?? [],
    formatter:
      o.formatter === 'anthropic-xml' ? new AnthropicXmlFormatter() : formatterOf(o.formatter),
    conditions: stopConditions(o.stopWhen),
    maxTokens: Math.min(o.maxTokens ?? 4096, model.maxOutput),
    thinking: o.thinking,
    workspace: o.workspace,
    session: o.session,
    sessionWaitMs: o.sessionWaitMs ?? DEFAULT_SESSION_WAIT_MS,
    resume:
      o.resume === undefined
        ? undefined
        : { approvals: o.resume === true ? {} : (o.resume.approvals ?? {}) },
    trace: o.trace,
    concurrency: o.toolConcurrency ?? Number.POSITIVE_INFINITY,
    loopGuard: o.loopGuard,
    plan: o.plan === true ? {} : o.plan,
    budgetTokens: o.budgetTokens,
    tokenCounter: o.tokenCounter,
    vars: { ...(o.vars ?? {}) },
    cache: o.cache ?? 'auto',
    compaction: resolveCompaction(options.compaction, model, o.session !== undefined),
    toolResultMaxTokens: o.toolResultMaxTokens ?? defaultToolResultMaxTokens(model),
    toolResultFollowsWindow: o.toolResultMaxTokens === undefined,
    toolChoice: o.toolChoice,
    prepareStep: o.prepareStep,
    output: o.output ? resolveOutput(o.output) : undefined,
  }
}

/** The output schema as JSON Schema; one zod cannot convert is a `ValidationError`. */
function resolveOutput(schema: z.ZodType): OutputSpec {
  try {
    return outputSpec(schema)
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    throw new ValidationError(
      `Invalid runAgent options: output: the schema has no JSON Schema form (${message})`,
      [{ path: 'output', message }],
    )
  }
}

/**
 * The run's new messages: `messages` as given, or `prompt` as one user text message. Both, or
 * neither outside a resumed run, is a `ValidationError`.
 */
function conversation(options: RunAgentOptions, resuming: boolean): readonly Message[] {
  if (options.prompt !== undefined && options.messages !== undefined) {
    throw new ValidationError(
      'Invalid runAgent options: prompt and messages: give one (prompt is the user message as text)',
      [{ path: 'prompt', message: 'not with messages' }],
    )
  }
  if (options.prompt !== undefined) return [textMessage('user', options.prompt)]
  if (options.messages !== undefined) return options.messages as Message[]
  if (resuming) return []
  throw new ValidationError(
    'Invalid runAgent options: messages: give the user message as `prompt: "…"` or `messages`',
    [{ path: 'messages', message: 'required (or prompt)' }],
  )
}
