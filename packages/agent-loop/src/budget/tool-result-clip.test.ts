// Issue 46: sealed messages are clipped once for every run at the same limit with the loop's
// default counter; anything else is clipped per run, as before.
import {
  createTokenCounter,
  getModelInfo,
  isSealedMessage,
  type Message,
  sealMessages,
} from '@contextkit/core'
import { describe, expect, test } from 'vitest'
import { defaultCounterFor } from './message-estimates.js'
import { ToolResultClipper } from './tool-result-clip.js'

const results = (text: string): Message => ({
  role: 'user',
  content: [
    {
      type: 'tool_result',
      toolCallId: 'c1',
      content: [{ type: 'text', text }],
      isError: false,
    },
  ],
})

const partText = (m: Message) => {
  const block = m.content[0]
  return block?.type === 'tool_result' && block.content[0]?.type === 'text'
    ? block.content[0].text
    : ''
}

describe('ToolResultClipper', () => {
  const counter = defaultCounterFor(getModelInfo('claude-haiku-4-5'))
  const long = 'word '.repeat(2_000)

  test('a sealed message is clipped once for every run at the same limit, and the copy is sealed', () => {
    const [message] = sealMessages([results(long)]) as [Message]
    const first = new ToolResultClipper(100, counter, undefined, counter).message(message)
    const second = new ToolResultClipper(100, counter, undefined, counter).message(message)
    expect(first).not.toBe(message)
    expect(partText(first)).toContain('of this tool result were left out')
    expect(second).toBe(first)
    expect(isSealedMessage(first)).toBe(true)
    // another limit, another clip
    const other = new ToolResultClipper(200, counter, undefined, counter).message(message)
    expect(other).not.toBe(first)
    expect(partText(other).length).toBeGreaterThan(partText(first).length)
    // a result that fits is the message itself
    const [short] = sealMessages([results('short')]) as [Message]
    expect(new ToolResultClipper(100, counter, undefined, counter).message(short)).toBe(short)
  })

  test('a message nobody sealed, or a counter of the caller’s, is clipped per run', () => {
    const plain = results(long)
    const first = new ToolResultClipper(100, counter, undefined, counter).message(plain)
    const second = new ToolResultClipper(100, counter, undefined, counter).message(plain)
    expect(second).not.toBe(first)
    expect(second).toEqual(first)
    // changed in place between runs: the next run clips what it holds now
    ;(plain.content[0] as { content: { text: string }[] }).content[0]!.text = 'now short'
    expect(new ToolResultClipper(100, counter, undefined, counter).message(plain)).toBe(plain)
    const [sealed] = sealMessages([results(long)]) as [Message]
    const own = createTokenCounter()
    const a = new ToolResultClipper(100, own, undefined, own).message(sealed)
    const b = new ToolResultClipper(100, own, undefined, own).message(sealed)
    expect(b).not.toBe(a)
    expect(b).toEqual(a)
  })

  test('a clipper that follows a smaller window clips sealed messages at the new limit', () => {
    const [message] = sealMessages([results(long)]) as [Message]
    const clipper = new ToolResultClipper(1_000, counter, 0.25, counter)
    const before = clipper.message(message)
    clipper.followWindow(400)
    const after = clipper.message(message)
    expect(after).not.toBe(before)
    expect(after).toBe(new ToolResultClipper(100, counter, undefined, counter).message(message))
  })
})
