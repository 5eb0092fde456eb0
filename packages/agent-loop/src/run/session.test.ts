import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sessionMessages, textMessage } from '@contextkit/core'
import { sessionHeader } from '@contextkit/core/store'
import { jsonlSessionStore } from '@contextkit/store-files'
import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import { emulated, memorySessionStore, onCleanup, wireText } from '../test-support.js'
import { defineTool } from '../tools/define-tool.js'
import { runAgent } from './run-agent.js'

const note = defineTool({
  name: 'note',
  description: 'Write a note',
  input: z.object({ text: z.string() }),
  execute: ({ text }) => `noted: ${text}`,
})

async function tempStore() {
  const dir = await mkdtemp(join(tmpdir(), 'agent-session-'))
  onCleanup(() => rm(dir, { recursive: true, force: true }))
  return jsonlSessionStore(dir, { fsync: false })
}

describe('runAgent({ session })', () => {
  test('a new session: header, the user turn and every step appended, chained by parentId', async () => {
    const store = await tempStore()
    const { provider } = await emulated([
      { toolUse: { name: 'note', input: { text: 'a' } } },
      'Noted.',
    ])
    const result = await runAgent({
      provider,
      model: 'claude-haiku-4-5',
      messages: [textMessage('user', 'Note a.')],
      tools: [note],
      session: { store, id: 'chat-1' },
    }).result
    const { entries, warnings } = await store.load('chat-1')
    expect(warnings).toEqual([])
    expect(entries[0]).toMatchObject({ type: 'session', id: 'chat-1', version: 1 })
    const messages = entries.slice(1)
    expect(messages.map((e) => (e.type === 'message' ? e.message.role : e.type))).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
    ])
    let parent: string | null = null
    for (const e of messages) {
      if (e.type !== 'message') continue
      expect(e.parentId).toBe(parent)
      parent = e.id
    }
    expect(sessionMessages(entries).slice(1)).toEqual(result.messages)
    // one line per entry, appended (two batches: step 1 with the user turn, then step 2)
    const lines = (await readFile(store.pathOf('chat-1'), 'utf8')).trim().split('\n')
    expect(lines).toHaveLength(5)
  })

  test('the next run sends the stored history first and appends after it', async () => {
    const store = memorySessionStore()
    const first = await emulated(['Hello, Ada.'])
    await runAgent({
      provider: first.provider,
      model: 'claude-haiku-4-5',
      messages: [textMessage('user', 'I am Ada.')],
      session: { store, id: 's' },
    }).result
    const second = await emulated(['You are Ada.'])
    const result = await runAgent({
      provider: second.provider,
      model: 'claude-haiku-4-5',
      messages: [textMessage('user', 'Who am I?')],
      session: { store, id: 's' },
    }).result
    const body = second.bodies()[0]!
    expect(body.messages.map(wireText)).toEqual(['I am Ada.', 'Hello, Ada.', 'Who am I?'])
    expect(result.messages).toHaveLength(1)
    const entries = store.data.get('s')!
    expect(entries.filter((e) => e.type === 'session')).toHaveLength(1)
    expect(sessionMessages(entries).map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
    ])
  })

  test('history is limited by turns, and an orphan tool call is repaired before it is sent', async () => {
    const store = memorySessionStore()
    const orphan = {
      type: 'tool_call' as const,
      id: 'toolu_orphan',
      name: 'note',
      input: { text: 'x' },
    }
    await store.append('old', [
      sessionHeader('old'),
      ...[
        textMessage('user', 'one'),
        textMessage('assistant', 'first'),
        textMessage('user', 'two'),
        { role: 'assistant' as const, content: [orphan] },
      ].map((message, i) => ({
        type: 'message' as const,
        id: `m${i}`,
        parentId: i === 0 ? null : `m${i - 1}`,
        message,
        ts: new Date(0).toISOString(),
      })),
    ])
    const { provider, bodies } = await emulated(['ok'])
    const result = await runAgent({
      provider,
      model: 'claude-haiku-4-5',
      messages: [textMessage('user', 'three')],
      tools: [note],
      session: { store, id: 'old', history: { turns: 1 } },
    }).result
    expect(result.stopReason).toBe('end_turn')
    const sent = bodies()[0]!.messages
    // turn "one" is cut; turn "two" keeps its call: the run takes up the unfinished one first,
    // answering the call (not idempotent) as interrupted, and saves that result
    expect(wireText(sent[0])).toBe('two')
    expect(sent[1]?.content).toEqual([
      { type: 'tool_use', id: 'toolu_orphan', name: 'note', input: { text: 'x' } },
    ])
    const interrupted = expect.stringMatching(
      /"note" was running\. It may or may not have taken effect/,
    )
    expect(sent[2]?.content).toEqual([
      expect.objectContaining({
        type: 'tool_result',
        tool_use_id: 'toolu_orphan',
        is_error: true,
        content: [{ type: 'text', text: interrupted }],
      }),
      // the rolling prompt-cache breakpoint (cache: 'auto') sits on the last message
      { type: 'text', text: 'three', cache_control: { type: 'ephemeral' } },
    ])
  })

  test('a store that fails to save ends the run with its error before any call', async () => {
    const store = memorySessionStore()
    const failing = {
      ...store,
      async append() {
        throw new Error('disk full')
      },
    }
    const { provider, bodies } = await emulated(['Hi.'])
    const result = await runAgent({
      provider,
      model: 'claude-haiku-4-5',
      messages: [textMessage('user', 'Hi')],
      session: { store: failing, id: 'f' },
    }).result
    expect(result.stopReason).toBe('error')
    expect(result.error?.code).toBe('agent_loop_error')
    expect(result.error?.message).toContain('disk full')
    // the user's message could not be made durable, so nothing was asked of the model
    expect(bodies()).toHaveLength(0)
    expect(result.messages).toEqual([])
  })
})
