import {
  defaultTokenCounter,
  getModelInfo,
  type Message,
  type SessionEntry,
  textMessage,
  ValidationError,
} from '@contextkit/core'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import { repairOrphans } from '../budget/history.js'
import { clipText, ToolResultClipper } from '../budget/tool-result-clip.js'
import { AGENT_LOOP_WARNINGS } from '../events/warnings.js'
import { runAgent } from '../run/run-agent.js'
import { applyCompaction } from '../session/apply-compaction.js'
import { sessionMessageEntries } from '../session/entries.js'
import { summaryMessage, summaryOf } from '../session/summary-message.js'
import { emulated, memorySessionStore, wireText } from '../test-support.js'
import { defineTool } from '../tools/define-tool.js'
import { resolveCompaction } from './compaction-options.js'
import { isCutPoint, selectCut } from './select-cut.js'
import { serializeConversation } from './summarize.js'

const call = (id: string): Message => ({
  role: 'assistant',
  content: [{ type: 'tool_call', id, name: 't', input: {} }],
})
const result = (id: string, text = 'ok'): Message => ({
  role: 'user',
  content: [
    { type: 'tool_result', toolCallId: id, content: [{ type: 'text', text }], isError: false },
  ],
})

/** A random history of user turns with tool steps (pairs whole). */
const history = fc
  .array(fc.tuple(fc.integer({ min: 0, max: 4 }), fc.integer({ min: 1, max: 400 })), {
    minLength: 1,
    maxLength: 30,
  })
  .map((turns) => {
    const out: Message[] = []
    let id = 0
    for (const [steps, size] of turns) {
      out.push(textMessage('user', 'q'.repeat(size)))
      for (let i = 0; i < steps; i++) {
        id++
        out.push(call(`c${id}`), result(`c${id}`, 'r'.repeat(size)))
      }
      out.push(textMessage('assistant', 'a'))
    }
    return out
  })

const tokens = (m: Message) => JSON.stringify(m).length / 4

describe('selectCut', () => {
  test('never separates a call from its result; the summarized part and the tail stay whole', () => {
    fc.assert(
      fc.property(history, fc.integer({ min: 0, max: 5_000 }), (messages, keep) => {
        const cut = selectCut(messages, keep, tokens)
        if (cut === undefined) return
        expect(cut).toBeGreaterThan(0)
        expect(isCutPoint(messages, cut)).toBe(true)
        const tail = [summaryMessage('s'), ...messages.slice(cut)]
        expect(repairOrphans(tail)).toEqual(tail)
        const head = messages.slice(0, cut)
        expect(repairOrphans(head)).toEqual(head)
      }),
    )
  })

  test('keeps about keepTokens of the newest messages, at the nearest cut point after', () => {
    const m = [
      textMessage('user', 'task'),
      call('a'),
      result('a', 'x'.repeat(400)),
      call('b'),
      result('b', 'x'.repeat(400)),
    ]
    // the walk back reaches the result of b, which is no cut point: the call before it is taken
    expect(selectCut(m, 50, tokens)).toBe(3)
    // everything within keepTokens: the newest cut point, the smallest tail
    expect(selectCut(m, 100_000, tokens)).toBe(3)
    // an earlier summary alone before the cut: nothing new to summarize
    expect(selectCut([summaryMessage('s'), call('a'), result('a')], 1, tokens)).toBeUndefined()
    expect(selectCut([textMessage('user', 'only')], 1, tokens)).toBeUndefined()
  })
})

describe('summary messages and serialization', () => {
  test('a summary message round-trips; the conversation is tagged by role', () => {
    expect(summaryOf(summaryMessage('Task: X'))).toBe('Task: X')
    expect(summaryOf(textMessage('user', 'Task: X'))).toBeUndefined()
    const text = serializeConversation([
      summaryMessage('old'),
      textMessage('user', 'Fix src/a.ts'),
      call('a'),
      result('a', 'z'.repeat(5_000)),
    ])
    expect(text).toContain('[User]: Fix src/a.ts')
    expect(text).toContain('[Assistant tool call]: t({})')
    expect(text).toContain('[Tool result]: ')
    expect(text).toContain('more characters]')
    expect(text).not.toContain('old')
  })
})

describe('applyCompaction', () => {
  const messages = [
    textMessage('user', 'one'),
    textMessage('assistant', 'two'),
    textMessage('user', 'three'),
  ]
  const entries = (): SessionEntry[] => [
    { type: 'session', version: 1, id: 's', createdAt: 't' },
    ...sessionMessageEntries(messages, { newId: counter() }),
  ]
  function counter() {
    let n = 0
    return () => `e${++n}`
  }
  const compaction = (firstKeptId: string, id = 'k1'): SessionEntry => ({
    type: 'compaction',
    id,
    parentId: 'e3',
    ts: 't',
    summary: 'S',
    firstKeptId,
  })

  test('summary + the messages from firstKeptId on; approval and custom entries skipped', () => {
    const list = [
      ...entries(),
      compaction('e2'),
      {
        type: 'custom',
        id: 'c',
        parentId: 'k1',
        ts: 't',
        customType: 'x',
        data: 1,
      } as SessionEntry,
      {
        type: 'approval',
        id: 'p',
        parentId: 'c',
        ts: 't',
        toolCallId: 'x',
        tool: 't',
        status: 'requested',
      } as SessionEntry,
      ...sessionMessageEntries([textMessage('assistant', 'four')], { newId: () => 'e4' }),
    ]
    const applied = applyCompaction(list)
    expect(applied.summary && summaryOf(applied.summary)).toBe('S')
    expect(applied.messages.map((m) => (m.content[0] as { text: string }).text)).toEqual([
      'two',
      'three',
      'four',
    ])
    expect(applied.warnings).toEqual([])
  })

  test('an entry naming an unknown id is ignored with a warning (the one before it applies)', () => {
    const applied = applyCompaction([
      ...entries(),
      compaction('e3', 'k1'),
      compaction('nope', 'k2'),
    ])
    expect(applied.warnings.map((w) => w.code)).toEqual([AGENT_LOOP_WARNINGS.compactionUnknownId])
    expect(applied.messages).toHaveLength(1)
    const none = applyCompaction([...entries(), compaction('nope')])
    expect(none.summary).toBeUndefined()
    expect(none.messages).toHaveLength(3)
  })

  test('a resumed run sends the summary first, and the history limit never drops it', async () => {
    const store = memorySessionStore()
    const list = [
      ...entries(),
      compaction('e3'),
      ...sessionMessageEntries([textMessage('assistant', 'x'.repeat(4_000))], {
        newId: () => 'e4',
      }),
    ]
    await store.append('s', list)
    const { provider, bodies } = await emulated(['fine'])
    const run = await runAgent({
      provider,
      model: 'claude-haiku-4-5',
      messages: [textMessage('user', 'next')],
      session: { store, id: 's', history: { tokens: 10 } },
    }).result
    expect(run.error).toBeUndefined()
    const sent = bodies()[0]?.messages ?? []
    expect(wireText(sent[0])).toContain('<summary>\nS\n</summary>')
    expect(JSON.stringify(sent)).not.toContain('"one"')
  })
})

describe('oversized tool results', () => {
  test('head + tail + a marker in the request; the session keeps the full text', async () => {
    const big = `HEAD ${'m'.repeat(40_000)} TAIL`
    const dump = defineTool({
      name: 'dump',
      description: 'Dumps',
      input: z.object({}),
      execute: () => big,
    })
    const store = memorySessionStore()
    const { provider, bodies } = await emulated([
      { text: 'Reading.', toolUse: { name: 'dump', input: {} } },
      'Done.',
    ])
    const run = await runAgent({
      provider,
      model: 'claude-haiku-4-5',
      messages: [textMessage('user', 'dump it')],
      tools: [dump],
      toolResultMaxTokens: 1_000,
      session: { store, id: 'clip' },
    }).result
    expect(run.stopReason).toBe('end_turn')
    const sent = JSON.stringify(bodies()[1]?.messages)
    expect(sent).toContain('HEAD ')
    expect(sent).toContain(' TAIL')
    expect(sent).toMatch(/characters \(~\d+ tokens\) of this tool result were left out/)
    expect(sent.length).toBeLessThan(10_000)
    expect(JSON.stringify(store.data.get('clip'))).toContain(big)
    expect(JSON.stringify(run.messages)).toContain(big)
  })

  test('clipText keeps about maxTokens; a clipper returns the same objects each time', () => {
    const text = 'w'.repeat(100_000)
    const clipped = clipText(text, 500, defaultTokenCounter)
    expect(defaultTokenCounter.count(clipped)).toBeLessThanOrEqual(520)
    expect(clipText('short', 500, defaultTokenCounter)).toBe('short')
    const clipper = new ToolResultClipper(100, defaultTokenCounter)
    const m = result('a', text)
    expect(clipper.message(m)).toBe(clipper.message(m))
    expect(clipper.message(m)).not.toBe(m)
    const small = result('b')
    expect(clipper.message(small)).toBe(small)
  })
})

describe('options', () => {
  test('on by default with a session, off without; the tail is clamped; unknown keys refused', () => {
    const model = { ...getModelInfo('claude-haiku-4-5'), contextWindow: 20_000 }
    expect(resolveCompaction(undefined, model, false)).toBeUndefined()
    expect(resolveCompaction(false, model, true)).toBeUndefined()
    expect(resolveCompaction(undefined, model, true)).toMatchObject({
      at: 0.8,
      keepRecentTokens: 4_000,
      maxAttemptsPerStep: 1,
      summarize: 'model',
    })
    expect(() =>
      runAgent({
        provider: { name: 'x', stream: async function* () {} },
        model: 'claude-haiku-4-5',
        messages: [],
        compaction: { at: 0.8, keep: 3 } as never,
      }),
    ).toThrow(ValidationError)
    expect(() =>
      runAgent({
        provider: { name: 'x', stream: async function* () {} },
        model: 'claude-haiku-4-5',
        messages: [],
        compaction: { at: 1.5 },
      }),
    ).toThrow(/compaction/)
  })
})
