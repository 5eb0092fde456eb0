import { isMessageArray, textMessage, ValidationError } from '@contextkit/core'
import { describe, expect, test } from 'vitest'
import { parseMessages } from './validate.js'

describe('parseMessages', () => {
  test('valid input passes the fast path as is; invalid input gets zod’s exact error', () => {
    const msgs = [textMessage('user', 'hi', { participant: 'A', cacheBreakpoint: true })]
    expect(isMessageArray(msgs)).toBe(true)
    expect(parseMessages(msgs)).toBe(msgs)
    let caught: unknown
    try {
      parseMessages([{ role: 'user', content: [{ type: 'text', text: 5 }] }])
    } catch (e) {
      caught = e
    }
    expect(ValidationError.isInstance(caught)).toBe(true)
    expect((caught as ValidationError).issues[0]?.path).toBe('0.content.0.text')
  })
})
