import type { LanguageModelV4CallOptions, LanguageModelV4Prompt } from '@ai-sdk/provider'
import type { ContextMiddleware } from '@contextkit/core'
import { bench, describe } from 'vitest'
import { contextkitMiddleware } from '../src/middleware.js'

// A 200-message prompt with 20 tools, as step 1 of a run and as a later step (the sections reused),
// through transformParams and the finalize of wrapGenerate, with an in-memory model: only the
// middleware's own work is measured.
const tools = Array.from({ length: 20 }, (_, i) => ({
  type: 'function' as const,
  name: `tool_${i}`,
  description: `Tool number ${i}, which does something useful with its input`,
  inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
}))
const history: LanguageModelV4Prompt = [{ role: 'system', content: 'You are a helpful assistant.' }]
for (let i = 0; i < 100; i++) {
  history.push({
    role: 'user',
    content: [{ type: 'text', text: `Question ${i}: what about item ${i}? ${'x'.repeat(200)}` }],
  })
  history.push({
    role: 'assistant',
    content: [{ type: 'text', text: `Answer ${i}: item ${i} is fine. ${'y'.repeat(200)}` }],
  })
}
const userTurn: LanguageModelV4Prompt = [
  ...history.slice(0, -1),
  { role: 'user', content: [{ type: 'text', text: 'And now?' }] },
]
const section = (id: string, cache: 'stable' | 'volatile') => ({
  id,
  text: `${id}: ${'z'.repeat(400)}`,
  priority: 10,
  cache,
})
const sections: ContextMiddleware = {
  name: 'sections',
  prepare: (turn) => ({
    ...turn,
    system: [...turn.system, section('identity', 'stable'), section('resumption', 'volatile')],
    userSections: [section('hint', 'volatile'), section('file', 'volatile')],
    prefill: 'Let me think.',
  }),
  finalize: (reply) => reply,
}
const mw = contextkitMiddleware({ middleware: [sections] })
const model = {
  specificationVersion: 'v4',
  provider: 'bench',
  modelId: 'claude-haiku-4-5',
  supportedUrls: {},
  doGenerate: async () => result,
  doStream: async () => {
    throw new Error('not used')
  },
} as const
const result = {
  content: [{ type: 'text' as const, text: 'Let me think. It is fine.' }],
  finishReason: { unified: 'stop' as const, raw: 'end_turn' },
  usage: {
    inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: 1, text: 1, reasoning: 0 },
  },
  warnings: [],
}

async function call(prompt: LanguageModelV4Prompt): Promise<void> {
  const params = (await mw.transformParams!({
    type: 'generate',
    params: { prompt, tools, maxOutputTokens: 1024 } as LanguageModelV4CallOptions,
    model: model as never,
  })) as LanguageModelV4CallOptions
  await mw.wrapGenerate!({
    doGenerate: async () => result,
    doStream: model.doStream,
    params,
    model: model as never,
  })
}

describe('contextkitMiddleware per call, 200-message prompt, 20 tools', () => {
  bench('step 1 of a run (prepare, fit, write back, finalize)', () => call(userTurn))
  bench('baseline: an empty middleware list', async () => {
    const none = contextkitMiddleware({ middleware: [] })
    const params = (await none.transformParams!({
      type: 'generate',
      params: { prompt: userTurn, tools, maxOutputTokens: 1024 } as LanguageModelV4CallOptions,
      model: model as never,
    })) as LanguageModelV4CallOptions
    await none.wrapGenerate!({
      doGenerate: async () => result,
      doStream: model.doStream,
      params,
      model: model as never,
    })
  })
})
