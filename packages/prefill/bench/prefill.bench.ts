import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  type AssistantMessage,
  createRunInfo,
  createTurnContext,
  emptyUsage,
  getModelInfo,
  runFinalize,
  runPrepare,
  textMessage,
} from '@contextkit/core'
import { afterAll, bench, describe } from 'vitest'
import { injectPrefill, stripPrefillFromContent, stripPrefillFromResponse } from '../src/index.js'
import { createPrefillCache, prefill, readPrefillContent } from '../src/node.js'

// A real workspace on disk: PREFILL.md exists; PREFILL.mjs, PREFILL.js and PREFILL.haiku.md do
// not, so each call does the full lookup (four stats) and serves the text from the warm cache.
const ws = mkdtempSync(join(tmpdir(), 'prefill-bench-'))
const PREFILL = 'I will analyze the request step by step, then answer concisely.'
writeFileSync(join(ws, 'PREFILL.md'), `${PREFILL}\n`)
afterAll(() => rmSync(ws, { recursive: true, force: true }))

const model = getModelInfo('claude-haiku-4-5')
const history = Array.from({ length: 41 }, (_, i) =>
  textMessage(i % 2 === 0 ? 'user' : 'assistant', `message ${i} `.repeat(50)),
)
const replyText = `${PREFILL} ${'The answer follows. '.repeat(100)}`
const cache = createPrefillCache()
const reply: AssistantMessage = {
  role: 'assistant',
  content: [{ type: 'text', text: replyText }],
  stopReason: 'end_turn',
  usage: emptyUsage(),
}

describe('overhead per call, warm cache (goal < 0.05 ms)', () => {
  bench('read + inject + strip (plain functions)', async () => {
    const text = await readPrefillContent(ws, { cache, model })
    const messages = injectPrefill(history, text, model)
    if (messages.length !== history.length + 1) throw new Error('not injected')
    if (stripPrefillFromResponse(replyText, text).length >= replyText.length) throw new Error('x')
  })

  const mw = prefill()
  const run = createRunInfo({ workspace: ws })
  const turn = createTurnContext({ model, messages: history })
  bench('middleware prepare + finalize (native prefill)', async () => {
    const prepared = await runPrepare([mw], turn, run)
    const out = await runFinalize([mw], reply, prepared, run)
    if (out === reply) throw new Error('not stripped')
  })

  const sonnet = createTurnContext({ model: getModelInfo('claude-sonnet-4-6'), messages: history })
  bench('middleware prepare + finalize (instruct fallback)', async () => {
    const prepared = await runPrepare([mw], sonnet, run)
    const out = await runFinalize([mw], reply, prepared, run)
    if (out === reply) throw new Error('not stripped')
  })

  bench('strip only: structured reply content', () => {
    stripPrefillFromContent(reply.content, PREFILL)
  })
})
