// End to end with the real SDK against testkit: a server whose window (20,000) the loop was not
// told (the model table says 200,000): the loop learns it from the first refusal, and the session
// keeps it for the next run.
import { getModelInfo, memoryTrace, textMessage } from '@contextkit/core'
import { jsonlSessionStore } from '@contextkit/store-files'
import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import { tempDir } from '../../../../test-utils/temp-dir.js'
import { AGENT_TRACE_STAGES } from '../events/trace-stages.js'
import { AGENT_LOOP_WARNINGS } from '../events/warnings.js'
import { chunk, chunkReader, readChunk, WINDOW } from '../run/compaction.fixture.js'
import { runAgent } from '../run/run-agent.js'
import { CONTEXT_WINDOW_ENTRY } from '../session/window-entries.js'
import { maxSteps } from '../stop/stop-conditions.js'
import { collect, emulated, memorySessionStore, onCleanup } from '../test-support.js'
import { defineTool } from '../tools/define-tool.js'

/** A table model whose table window is ten times what the emulator serves. */
const MODEL = 'claude-haiku-4-5'

describe('a window the loop is not told', () => {
  test('60 steps against a 20,000-token server the table calls 200,000: learned, ≤ 2 refusals, none on resume', async () => {
    expect(getModelInfo(MODEL).contextWindow).toBe(200_000)
    const { dir, cleanup } = await tempDir('learned-window-')
    onCleanup(cleanup)
    const store = jsonlSessionStore(dir)
    const { provider, emulator, bodies } = await emulated(chunkReader(60), {
      models: [{ id: MODEL, maxInputTokens: WINDOW }],
    })
    const session = { store, id: 'small-server' }
    const run = runAgent({
      provider,
      model: MODEL,
      system: 'You read logs carefully.',
      messages: [textMessage('user', 'Read the 60 chunks of the log, then say done.')],
      tools: [readChunk],
      stopWhen: maxSteps(100),
      session,
    })
    const events = await collect(run.events)
    const result = await run.result
    expect(result.error).toBeUndefined()
    expect(result.stopReason).toBe('end_turn')
    expect(result.steps).toBe(61)
    const messages = () => emulator.requests.filter((r) => r.path === '/v1/messages')
    const refused = messages().filter((r) => r.status !== 200)
    console.log(
      `refused ${refused.length} of ${messages().length} requests; compactions ${events.filter((e) => e.type === 'compaction-end').length}`,
    )
    expect(refused.length).toBeGreaterThan(0)
    expect(refused.length).toBeLessThanOrEqual(2)
    expect(refused.every((r) => r.status === 400)).toBe(true)
    // the warning says what was learned, from where
    const learned = result.warnings.filter(
      (w) => w.code === AGENT_LOOP_WARNINGS.contextWindowLearned,
    )
    expect(learned).toHaveLength(1)
    expect(learned[0]?.message).toContain(`its ${WINDOW}-token context window`)
    expect(learned[0]?.message).toContain(
      "200000-token context window (from contextkit's model table)",
    )
    // the session holds the record
    const loaded = await store.load(session.id)
    const records = loaded.entries.filter((e) => e.type === 'custom')
    expect(records.length).toBeGreaterThan(0)
    // written again after each compaction: a tail load (from the newest compaction) finds it
    const types = loaded.entries.map((e) => e.type)
    expect(types.lastIndexOf('compaction')).toBeGreaterThan(0)
    expect(types.lastIndexOf('custom')).toBe(types.lastIndexOf('compaction') + 1)
    expect(records.at(-1)).toMatchObject({
      customType: CONTEXT_WINDOW_ENTRY,
      data: { model: MODEL, window: WINDOW },
    })
    // every summary call asked for what the window in force leaves
    const summaries = bodies().filter((b) => (b.system?.[0]?.text ?? '').startsWith('You write'))
    expect(summaries.length).toBeGreaterThan(0)
    for (const s of summaries) expect(s.max_tokens).toBeLessThanOrEqual(WINDOW / 10)

    // the session recorded the window: a resumed run starts with it (without the record it would
    // take 200,000: no compaction, the trace's window 200000); its first request (the kept tail
    // plus ~9,000 tokens of new text) passes 80% of 20,000, is compacted first, and none is refused
    const before = messages().length
    const trace = memoryTrace()
    const pasted = [61, 62, 63].map(chunk).join('\n')
    const next = await runAgent({
      provider,
      model: MODEL,
      system: 'You read logs carefully.',
      messages: [textMessage('user', `Three more chunks:\n${pasted}\nWhich chunk was last?`)],
      tools: [readChunk],
      session,
      trace,
    }).result
    expect(next.error).toBeUndefined()
    expect(next.stopReason).toBe('end_turn')
    expect(
      messages()
        .slice(before)
        .filter((r) => r.status !== 200),
    ).toEqual([])
    expect(next.warnings.map((w) => w.code)).not.toContain(AGENT_LOOP_WARNINGS.contextWindowLearned)
    const windows = trace.byStage(AGENT_TRACE_STAGES.composition).map((e) => e.data.window)
    expect(windows.length).toBeGreaterThan(0)
    expect(new Set(windows)).toEqual(new Set([WINDOW]))
    expect(trace.byStage(AGENT_TRACE_STAGES.compacted).length).toBeGreaterThan(0)
  }, 60_000)

  test('a system prompt over the server window: context_irreducible quotes the learned window', async () => {
    const { provider, emulator } = await emulated(['never answered'], {
      models: [{ id: MODEL, maxInputTokens: WINDOW }],
    })
    const result = await runAgent({
      provider,
      model: MODEL,
      system: `Rules: ${'be exact. '.repeat(10_000)}`,
      messages: [textMessage('user', 'Hi')],
      compaction: {},
    }).result
    expect(result.error?.code).toBe('context_irreducible')
    expect(result.error?.message).toContain(
      `over the model's ${WINDOW}-token context window (learned from the server)`,
    )
    expect(result.error?.message).not.toContain('200000')
    expect(result.error?.details).toMatchObject({ contextWindow: WINDOW, windowSource: 'learned' })
    expect(emulator.requests.filter((r) => r.status === 400)).toHaveLength(1)
  })

  test('a window the caller gave is quoted as given', async () => {
    const { provider, emulator } = await emulated(['never sent'], {
      models: [{ id: MODEL, maxInputTokens: WINDOW }],
    })
    const result = await runAgent({
      provider,
      model: { ...getModelInfo(MODEL), contextWindow: WINDOW },
      system: `Rules: ${'be exact. '.repeat(10_000)}`,
      messages: [textMessage('user', 'Hi')],
      compaction: {},
    }).result
    expect(result.error?.message).toContain(`${WINDOW}-token context window (as given)`)
    expect(result.error?.details).toMatchObject({ windowSource: 'option' })
    expect(emulator.requests).toHaveLength(0)
  })

  test('a 30,000-token tool result: the default clip follows the learned window, the run finishes', async () => {
    const dump = defineTool({
      name: 'dump',
      description: 'Returns a large file',
      input: z.object({}),
      execute: () => 'line of a large log file\n'.repeat(5_000),
    })
    let calls = 0
    const { provider, emulator } = await emulated(
      (r) => {
        if (r.system.startsWith('You write')) return 'Summary: the log was dumped.'
        calls++
        return calls === 1 ? { text: 'Dumping.', toolUse: { name: 'dump', input: {} } } : 'Done.'
      },
      { models: [{ id: MODEL, maxInputTokens: WINDOW }] },
    )
    const result = await runAgent({
      provider,
      model: MODEL,
      messages: [textMessage('user', 'Dump the log.')],
      tools: [dump],
      session: { store: memorySessionStore(), id: 'dump' },
    }).result
    expect(result.error).toBeUndefined()
    expect(result.stopReason).toBe('end_turn')
    const refused = emulator.requests.filter((r) => r.path === '/v1/messages' && r.status !== 200)
    expect(refused).toHaveLength(1)
    // the retried request held the result cut to a quarter of 20,000 tokens
    const last = emulator.requests.filter((r) => r.path === '/v1/messages').at(-1)
    expect(JSON.stringify(last?.body)).toContain('of this tool result were left out')
  })
})
