// The prompt-cache scenario of issue 15, shared by bench/cache.bench.ts (figures for the README)
// and src/cache-hit-rate.test.ts (the >= 85 % assertion): the real SDK, anthropicProvider and
// testkit's cache model.

import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Anthropic from '@anthropic-ai/sdk'
import { textMessage } from '@contextkit/core'
import { jsonlSessionStore } from '@contextkit/store-files'
import {
  type AnthropicEmulator,
  startAnthropicEmulator,
  textTokens,
  toolTokens,
} from '@contextkit/testkit'
import { z } from 'zod'
import { proseOf, toolStepScript } from '../../../test-utils/bench-text.js'
import { anthropicProvider } from '../src/anthropic/anthropic-provider.js'
import type { AgentCallUsage, AgentResult } from '../src/events/events.js'
import type { ModelProvider } from '../src/provider/contract.js'
import { runAgent } from '../src/run/run-agent.js'
import { maxSteps } from '../src/stop/stop-conditions.js'
import { defineTool } from '../src/tools/define-tool.js'

/**
 * How the scenario's calls are marked: `'naive'` is one breakpoint on the system prompt (what a
 * per-message `cacheControl` marker on the system message gives, as in the AI SDK's docs);
 * `'request'` is `cache: 'off'` plus a top-level `cache_control` on the request (Anthropic's
 * automatic caching, what the AI SDK sends for `providerOptions.anthropic.cacheControl` given
 * at the request level).
 */
export type ScenarioPlacement = 'auto' | 'off' | 'naive' | 'request'

/** Options of {@link runCacheScenario}. */
export interface CacheScenarioOptions {
  /** Model calls per run. Default 10. */
  steps?: number
  /** Tokens of the stable system prompt (testkit's rule: 4 characters a token). Default 20,000. */
  systemTokens?: number
  /** Tokens of each tool result, the history's growth per step. Default 1,500. */
  resultTokens?: number
  /** Model id. Default `claude-sonnet-4-6` (caches from 1,024 tokens). */
  model?: string
}

/** One placement's run. */
export interface PlacementFigures {
  placement: ScenarioPlacement
  calls: AgentCallUsage[]
  /** Cache reads ÷ all input tokens (uncached + read + written) of steps 2..n. */
  readShare: number
  /** The same sums, for the README. */
  read: number
  total: number
  /**
   * Input cost of the whole run (every call) in uncached-token units, at the API's published
   * multipliers: reads 0.1×, 5-minute writes 1.25×.
   */
  inputCost: number
}

/** What {@link runCacheScenario} measured. */
export interface CacheScenarioFigures {
  auto: PlacementFigures
  off: PlacementFigures
  naive: PlacementFigures
  request: PlacementFigures
  /**
   * The most any placement can read on steps 2..n: a call can read at most all the previous call
   * sent (the step's new tokens, the last reply and its tool result, were never sent before), so
   * the bound is the sum of the previous calls' whole inputs over the sum of the calls' inputs.
   */
  bound: { read: number; total: number; readShare: number }
  /** A second run of the `auto` session, within the TTL. */
  secondRun: {
    firstCall: AgentCallUsage
    /** Tokens of the tool definitions plus the stable system prompt (the stable prefix). */
    stablePrefixTokens: number
  }
  /** Cache reads the emulator counted over every request (equals the sum of the runs' usage). */
  emulatorReads: number
  /** Cache reads reported in the runs' `usage`, summed. */
  reportedReads: number
}

const WORDS =
  'the agent reads each file of the repository and keeps notes on how orders are parsed validated and stored '.split(
    ' ',
  )

/** Deterministic prose of exactly `chars` characters. */
export const prose = proseOf(WORDS)

function share(calls: readonly AgentCallUsage[]): {
  readShare: number
  read: number
  total: number
} {
  let read = 0
  let total = 0
  for (const c of calls) {
    if (c.phase !== 'agent' || c.step < 2) continue
    read += c.cacheRead
    total += c.input + c.cacheRead + c.cacheWrite
  }
  return { readShare: total > 0 ? read / total : 0, read, total }
}

/**
 * The most cache reads calls 2..n can get: each call at most reads every token the previous call
 * sent (its whole input); what the step added since was never sent.
 */
export function readBound(calls: readonly AgentCallUsage[]): {
  read: number
  total: number
  readShare: number
} {
  const agent = calls.filter((c) => c.phase === 'agent')
  const all = (c: AgentCallUsage) => c.input + c.cacheRead + c.cacheWrite
  let read = 0
  let total = 0
  for (let i = 1; i < agent.length; i++) {
    read += all(agent[i - 1] as AgentCallUsage)
    total += all(agent[i] as AgentCallUsage)
  }
  return { read, total, readShare: total > 0 ? read / total : 0 }
}

/** A `fetch` adding a top-level `cache_control` to every Messages request (automatic caching). */
function withRequestCacheControl(): typeof fetch {
  return (input, init) => {
    if (typeof init?.body !== 'string') return fetch(input, init)
    const body = JSON.parse(init.body) as Record<string, unknown>
    return fetch(input, {
      ...init,
      body: JSON.stringify({ ...body, cache_control: { type: 'ephemeral' } }),
    })
  }
}

/** `cache: 'off'` plus one breakpoint on the system prompt's last block: the naive placement. */
function naive(inner: ModelProvider): ModelProvider {
  return {
    name: `${inner.name}+naive`,
    stream(request, options) {
      const system = request.system.map((b, i) =>
        i === request.system.length - 1
          ? { ...b, cache_control: { type: 'ephemeral' as const } }
          : b,
      )
      return inner.stream({ ...request, system, cacheMarkersApplied: 1 }, options)
    },
  }
}

/**
 * Run the scenario: a tool loop of `steps` calls over a stable system prompt of `systemTokens`,
 * each step adding a tool result of `resultTokens`, once per placement (each under its own API
 * key, so their cache entries are apart), then a second run of the `auto` session.
 */
export async function runCacheScenario(
  options: CacheScenarioOptions = {},
): Promise<CacheScenarioFigures> {
  const steps = options.steps ?? 10
  const model = options.model ?? 'claude-sonnet-4-6'
  const system = prose(0, (options.systemTokens ?? 20_000) * 4)
  const resultChars = (options.resultTokens ?? 1_500) * 4
  const readFile = defineTool({
    name: 'read_file',
    description: 'Read a file of the repository.',
    input: z.object({ path: z.string() }),
    execute: ({ path }) => prose(path.length * 7, resultChars),
  })
  const emulator: AnthropicEmulator = await startAnthropicEmulator({
    script: toolStepScript(steps, 'All files are read; orders are parsed in src/orders.ts.'),
  })
  const dir = await mkdtemp(join(tmpdir(), 'cache-scenario-'))
  try {
    const store = jsonlSessionStore(dir, { fsync: false })
    const provider = (key: string) =>
      anthropicProvider({
        client: new Anthropic({
          apiKey: key,
          baseURL: emulator.url,
          ...(key === 'request' ? { fetch: withRequestCacheControl() } : {}),
        }),
      })
    const run = async (
      placement: ScenarioPlacement,
      text: string,
      session?: string,
    ): Promise<AgentResult> => {
      const base = provider(placement)
      const result = await runAgent({
        provider: placement === 'naive' ? naive(base) : base,
        model,
        system,
        messages: [textMessage('user', text)],
        tools: [readFile],
        stopWhen: maxSteps(steps),
        cache: placement === 'auto' ? 'auto' : 'off',
        ...(session ? { session: { store, id: session } } : {}),
      }).result
      if (result.error) throw result.error
      if (result.steps !== steps) throw new Error(`expected ${steps} calls, got ${result.steps}`)
      return result
    }
    const figures = (placement: ScenarioPlacement, result: AgentResult): PlacementFigures => ({
      placement,
      calls: result.usage.calls,
      ...share(result.usage.calls),
      inputCost: result.usage.calls.reduce(
        (n, c) => n + c.input + 0.1 * c.cacheRead + 1.25 * c.cacheWrite,
        0,
      ),
    })
    const question = 'Find where orders are parsed.'
    const auto = await run('auto', question, 'cache-scenario')
    const off = await run('off', question)
    const naiveRun = await run('naive', question)
    const requestRun = await run('request', question)
    const second = await run('auto', 'Now find where they are stored.', 'cache-scenario')
    const firstBody = emulator.requests.find((r) => r.path === '/v1/messages')?.body as {
      tools: Parameters<typeof toolTokens>[0][]
    }
    const stablePrefixTokens =
      firstBody.tools.reduce((n, t) => n + toolTokens(t), 0) + textTokens(system)
    const results = [auto, off, naiveRun, requestRun, second]
    return {
      auto: figures('auto', auto),
      off: figures('off', off),
      naive: figures('naive', naiveRun),
      request: figures('request', requestRun),
      bound: readBound(off.usage.calls),
      secondRun: { firstCall: second.usage.calls[0]!, stablePrefixTokens },
      emulatorReads: emulator.cacheStats().cacheReadInputTokens,
      reportedReads: results.reduce((n, r) => n + r.usage.cacheRead, 0),
    }
  } finally {
    await emulator.close()
    await rm(dir, { recursive: true, force: true })
  }
}
