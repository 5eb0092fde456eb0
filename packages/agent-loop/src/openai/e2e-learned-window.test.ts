// End to end: the OpenAI chat provider against testkit's chat-completions endpoint, a local model
// the table does not know (guessed at 100,000 tokens) served with a 20,000-token window. The
// endpoint refuses in OpenAI's words (`This model's maximum context length is M tokens. …`,
// `context_length_exceeded`); the loop learns the window from them.
import { getModelInfo, textMessage } from '@contextkit/core'
import { jsonlSessionStore } from '@contextkit/store-files'
import { startAnthropicEmulator } from '@contextkit/testkit'
import { describe, expect, test } from 'vitest'
import { tempDir } from '../../../../test-utils/temp-dir.js'
import { AGENT_LOOP_WARNINGS } from '../events/warnings.js'
import { chunkReader, readChunk, WINDOW } from '../run/compaction.fixture.js'
import { runAgent } from '../run/run-agent.js'
import { maxSteps } from '../stop/stop-conditions.js'
import { onCleanup } from '../test-support.js'
import { openAIChatProvider } from './chat-provider.js'

const MODEL = 'local-reader-8b'

describe('a window the loop is not told (OpenAI-compatible server)', () => {
  test('60 steps: learned from context_length_exceeded, ≤ 2 refusals, none on resume', async () => {
    expect(getModelInfo(MODEL).contextWindow).toBe(100_000)
    const { dir, cleanup } = await tempDir('learned-window-chat-')
    onCleanup(cleanup)
    const emulator = await startAnthropicEmulator({
      script: chunkReader(60),
      models: [{ id: MODEL, maxInputTokens: WINDOW }],
    })
    onCleanup(() => emulator.close())
    const provider = openAIChatProvider({
      baseURL: `${emulator.url}/v1`,
      apiKey: 'k',
      retryDelayMs: 1,
    })
    const session = { store: jsonlSessionStore(dir), id: 'local' }
    const options = {
      provider,
      model: MODEL,
      system: 'You read logs carefully.',
      tools: [readChunk],
      stopWhen: maxSteps(100),
      session,
    }
    const result = await runAgent({
      ...options,
      messages: [textMessage('user', 'Read the 60 chunks of the log, then say done.')],
    }).result
    expect(result.error).toBeUndefined()
    expect(result.stopReason).toBe('end_turn')
    expect(result.steps).toBe(61)
    const calls = () => emulator.requests.filter((r) => r.path === '/v1/chat/completions')
    const refused = calls().filter((r) => r.status !== 200)
    console.log(`chat: refused ${refused.length} of ${calls().length} requests`)
    expect(refused.length).toBeGreaterThan(0)
    expect(refused.length).toBeLessThanOrEqual(2)
    const learned = result.warnings.filter(
      (w) => w.code === AGENT_LOOP_WARNINGS.contextWindowLearned,
    )
    expect(learned).toHaveLength(1)
    expect(learned[0]?.message).toContain(`its ${WINDOW}-token context window`)

    const before = calls().length
    const next = await runAgent({
      ...options,
      messages: [textMessage('user', 'Which chunk was last?')],
    }).result
    expect(next.error).toBeUndefined()
    expect(
      calls()
        .slice(before)
        .filter((r) => r.status !== 200),
    ).toEqual([])
    expect(next.warnings.map((w) => w.code)).not.toContain(AGENT_LOOP_WARNINGS.contextWindowLearned)
  }, 60_000)
})
