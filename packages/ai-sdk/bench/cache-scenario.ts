// The prompt-cache scenario of issue 47, shared by cache.test.ts (the ≥ 80 % assertion) and
// bench/cache.bench.ts (the figure for the README): a 6-step tool run inside `generateText` with
// the real `ai` and `@ai-sdk/anthropic` against testkit's cache model, a ~4,000-token system
// prompt plus the workspace's AGENTS.md (preload's bootstrap section).

import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createAnthropic } from '@ai-sdk/anthropic'
import type { CacheMode } from '@contextkit/core/cache'
import { preload } from '@contextkit/preload/node'
import { startAnthropicEmulator } from '@contextkit/testkit'
import { generateText, stepCountIs, tool, wrapLanguageModel } from 'ai'
import { z } from 'zod'
import { proseOf, toolStepScript } from '../../../test-utils/bench-text.js'
import { contextkitMiddleware } from '../src/middleware.js'

const WORDS = 'the agent reads each file and keeps short notes on how orders are parsed '.split(' ')

/** Deterministic prose of exactly `chars` characters (testkit's rule: 4 characters a token). */
export const prose = proseOf(WORDS)

/** What one run of the scenario measured. */
export interface CacheScenarioFigures {
  /** Input tokens of every call: uncached + read from the cache + written to it. */
  input: number
  /** Of them, read from the cache. */
  read: number
  /** `read ÷ input`. */
  readShare: number
  /** The same read share as testkit's cache model counted it (over the same requests). */
  emulatorShare: number
  /** Model calls made. */
  calls: number
  /** The most `cache_control` markers one request carried. */
  maxMarkers: number
}

/** Run the scenario once with the middleware's `cache` mode. */
export async function runCacheScenario(cache: CacheMode, steps = 6): Promise<CacheScenarioFigures> {
  const dir = await mkdtemp(join(tmpdir(), 'ai-sdk-cache-'))
  const emu = await startAnthropicEmulator({
    script: toolStepScript(steps, 'Orders are parsed in src/orders.ts.'),
  })
  try {
    await writeFile(join(dir, 'AGENTS.md'), `# Conventions\n\n${prose(7, 2_000)}\n`)
    const anthropic = createAnthropic({ baseURL: `${emu.url}/v1`, apiKey: 'k' })
    const model = wrapLanguageModel({
      model: anthropic('claude-sonnet-4-6'),
      middleware: contextkitMiddleware({ middleware: [preload()], workspace: dir, cache }),
    })
    const readFile = tool({
      description: 'Read a file of the repository.',
      inputSchema: z.object({ path: z.string() }),
      execute: async ({ path }) => `// ${path}\n${prose(path.length, 600)}`,
    })
    const result = await generateText({
      model,
      system: `You are a careful repository assistant. ${prose(0, 16_000)}`,
      prompt: 'Read the files and tell me where orders are parsed.',
      tools: { read_file: readFile },
      stopWhen: stepCountIs(steps),
    })
    let input = 0
    let read = 0
    for (const step of result.steps) {
      const d = step.usage.inputTokenDetails
      read += d.cacheReadTokens ?? 0
      input += (d.noCacheTokens ?? 0) + (d.cacheReadTokens ?? 0) + (d.cacheWriteTokens ?? 0)
    }
    const markers = emu.requests.map(
      (r) => JSON.stringify(r.body).split('"cache_control"').length - 1,
    )
    return {
      input,
      read,
      readShare: input > 0 ? read / input : 0,
      emulatorShare: emu.cacheStats().hitRate,
      calls: result.steps.length,
      maxMarkers: Math.max(0, ...markers),
    }
  } finally {
    await emu.close()
    await rm(dir, { recursive: true, force: true })
  }
}
