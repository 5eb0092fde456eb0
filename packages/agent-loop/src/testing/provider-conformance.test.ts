import { readFileSync, writeFileSync } from 'node:fs'
import { createAnthropic } from '@ai-sdk/anthropic'
import Anthropic from '@anthropic-ai/sdk'
import { ChatMLFormatter } from '@contextkit/formatters'
import { startAnthropicEmulator } from '@contextkit/testkit'
import { describe, expect, test } from 'vitest'
import { type AiSdkLanguageModel, aiSdkProvider } from '../ai-sdk/ai-sdk-provider.js'
import { anthropicProvider } from '../anthropic/anthropic-provider.js'
import { openAICompatibleCompletionsProvider } from '../completions/completions-provider.js'
import { openAIChatProvider } from '../openai/chat-provider.js'
import {
  conformanceMatrix,
  PROVIDER_CHECK_NAMES,
  type ProviderConformanceReport,
  providerConformance,
} from './provider-conformance.js'
import type { StartConformanceEmulator } from './provider-harness.js'

const startEmulator = startAnthropicEmulator as unknown as StartConformanceEmulator

const PROVIDERS = {
  anthropic: () =>
    providerConformance(
      ({ url }) =>
        anthropicProvider({
          client: new Anthropic({ baseURL: url, apiKey: 'k', maxRetries: 2 }),
          retryDelayMs: 1,
        }),
      { startEmulator },
    ),
  'openai chat': () =>
    providerConformance(
      ({ url }) => openAIChatProvider({ baseURL: `${url}/v1`, retryDelayMs: 1 }),
      {
        startEmulator,
        // chat servers take no reasoning back and report it only where they think; the emulator streams it
        supports: { imageToolResults: true },
      },
    ),
  'completions (ChatML)': () =>
    providerConformance(
      ({ url }) => openAICompatibleCompletionsProvider({ baseURL: `${url}/v1` }),
      {
        startEmulator,
        formatter: new ChatMLFormatter(),
        toolCallText: (calls) =>
          calls
            .map(
              (c) =>
                `<tool_call>\n${JSON.stringify({ name: c.name, arguments: c.input })}\n</tool_call>`,
            )
            .join('\n'),
        supports: {
          thinking: false,
          images: false,
          imageToolResults: false,
          cachedTokens: false,
          streamRetries: false,
          httpRetries: false,
        },
      },
    ),
  'ai-sdk (@ai-sdk/anthropic)': () =>
    providerConformance(
      ({ url }) =>
        aiSdkProvider(
          createAnthropic({ baseURL: `${url}/v1`, apiKey: 'k' })(
            'claude-haiku-4-5',
          ) as unknown as AiSdkLanguageModel,
          {
            retryDelayMs: 1,
          },
        ),
      { startEmulator },
    ),
} as const

/** Where the table is: the providers guide (docs/guides/providers.md, "Provider conformance"). */
const GUIDE = new URL('../../../../docs/guides/providers.md', import.meta.url)
const START = '<!-- provider-table:start -->\n'
const END = '<!-- provider-table:end -->'

describe('providerConformance', () => {
  const reports: Record<string, ProviderConformanceReport> = {}
  for (const [name, run] of Object.entries(PROVIDERS)) {
    test(`${name} passes every check it does not skip`, { timeout: 60_000 }, async () => {
      const report = await run()
      reports[name] = report
      expect(report.results.map((r) => r.check)).toEqual(PROVIDER_CHECK_NAMES)
      expect(report.results.filter((r) => r.outcome === 'fail')).toEqual([])
      expect(report.passed).toBeGreaterThanOrEqual(17)
    })
  }

  test("the providers guide's table is this run's matrix", () => {
    expect(PROVIDER_CHECK_NAMES.length).toBeGreaterThanOrEqual(23)
    expect(Object.keys(reports)).toEqual(Object.keys(PROVIDERS))
    const matrix = `${conformanceMatrix(reports)}\n`
    const readme = readFileSync(GUIDE, 'utf8')
    const at = readme.indexOf(START) + START.length
    const current = readme.slice(at, readme.indexOf(END))
    // CONTEXTKIT_UPDATE_README=1 writes the table (then review the diff)
    if (process.env.CONTEXTKIT_UPDATE_README === '1' && current !== matrix) {
      writeFileSync(GUIDE, readme.slice(0, at) + matrix + readme.slice(at + current.length))
      return
    }
    expect(current).toBe(matrix)
  })
})
