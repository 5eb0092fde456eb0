/**
 * Issue 46: a history sealed with core's `sealMessages` is trusted by identity from run to run
 * (its checks, renderings, token estimates and the formatter's checkpoint are not redone), and a
 * run's result messages come sealed. The model must see exactly what it sees from the same
 * history unsealed, run after run, and the loop must never try to change a sealed message.
 */
import {
  type AssistantMessage,
  type ContextMiddleware,
  isSealedMessage,
  type Message,
  sealMessages,
  textMessage,
} from '@contextkit/core'
import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import { history } from '../../bench/fixtures.js'
import { scriptedProvider } from '../testing/scripted-provider.js'
import { defineTool } from '../tools/define-tool.js'
import { runAgent } from './run-agent.js'

const read = defineTool({
  name: 'read',
  description: 'Read a file',
  input: z.object({ path: z.string() }),
  execute: ({ path }) => `contents of ${path}`,
})

/** Three runs of a chat: each goes on from the last one's messages with a new question. */
async function threeRuns(seal: boolean) {
  const provider = scriptedProvider((_request, index) =>
    index % 2 === 0
      ? { text: 'Reading.', toolCalls: [{ name: 'read', input: { path: `src/f${index}.ts` } }] }
      : 'Done.',
  )
  let messages: Message[] = history(60)
  if (seal) sealMessages(messages)
  const kept: Message[][] = []
  for (let run = 0; run < 3; run++) {
    const question = textMessage('user', `Question ${run}?`)
    const result = await runAgent({
      provider,
      model: 'claude-haiku-4-5',
      messages: [...messages, question],
      tools: [read],
    }).result
    expect(result.stopReason).toBe('end_turn')
    // the next run goes on from this one: the history, the question, the run's own messages
    const added = [question, ...result.messages]
    messages = [...messages, ...(seal ? sealMessages(added) : added)]
    kept.push(messages)
  }
  return { requests: JSON.parse(JSON.stringify(provider.requests)), kept }
}

describe('a sealed history', () => {
  test('the model sees what it sees from the same history unsealed, run after run', async () => {
    const plain = await threeRuns(false)
    const sealed = await threeRuns(true)
    expect(sealed.requests).toHaveLength(6)
    expect(sealed.requests).toStrictEqual(plain.requests)
    // each run went on from the sealed messages themselves, not copies of them
    const [first, second] = sealed.kept
    expect(second).toHaveLength((first?.length ?? 0) + 4)
    for (const [i, m] of (first ?? []).entries()) expect(second?.[i]).toBe(m)
    expect(second?.every(isSealedMessage)).toBe(true)
  })

  test("a run's result messages come sealed; one a finalize hook made unsealable stays as it is", async () => {
    class Reply {}
    // a hook that hands back a class instance: sealing refuses it, the run goes on
    const odd: ContextMiddleware = {
      name: 'odd',
      finalize: (reply) => Object.assign(new Reply(), reply) as AssistantMessage,
    }
    const provider = scriptedProvider([
      { text: 'Reading.', toolCalls: [{ name: 'read', input: { path: 'a.ts' } }] },
      'Done.',
    ])
    const first = await runAgent({
      provider,
      model: 'claude-haiku-4-5',
      messages: [textMessage('user', 'Read a.ts')],
      tools: [read],
    }).result
    expect(first.messages).toHaveLength(3)
    expect(first.messages.every(isSealedMessage)).toBe(true)
    const next = await runAgent({
      provider: scriptedProvider(['Still done.']),
      model: 'claude-haiku-4-5',
      messages: [...first.messages, textMessage('user', 'Again?')],
      middleware: [odd],
    }).result
    expect(next.stopReason).toBe('end_turn')
    expect(next.messages[0]).toBeInstanceOf(Reply)
    expect(isSealedMessage(next.messages[0])).toBe(false)
    expect(Object.isFrozen(next.messages[0])).toBe(false)
  })
})
