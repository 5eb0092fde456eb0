import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import * as z from 'zod'
import { parseWith, ValidationError } from './errors.js'
import { block, field, message, obj } from './input-arbitraries.fixture.js'
import {
  MessageListCheck,
  ToolDefinitionCheck,
  ToolListCheck,
  ToolResultContentCheck,
  ToolResultListCheck,
} from './message-checks.js'
import {
  ImageBlockSchema,
  MessageSchema,
  TextBlockSchema,
  ToolDefinitionSchema,
  ToolResultBlockSchema,
} from './message-schemas.js'
import { textMessage } from './messages.js'

/** The check and the zod schema accept the same value; what the check passes is the value. */
function agree(
  check: { safeParse(v: unknown): { success: boolean; data?: unknown } },
  schema: z.ZodType,
  v: unknown,
): boolean {
  const a = check.safeParse(v)
  expect(a.success).toBe(schema.safeParse(v).success)
  if (a.success) expect(a.data).toBe(v)
  return a.success
}

describe('the zod-free message checks accept exactly what the zod schemas accept', () => {
  test('property: message lists', () => {
    let accepted = 0
    fc.assert(
      fc.property(fc.oneof(fc.array(message, { maxLength: 3 }), field), (v) => {
        if (agree(MessageListCheck, MessageSchema.array(), v)) accepted++
      }),
      { numRuns: 3000 },
    )
    expect(accepted).toBeGreaterThan(300)
  })

  test('property: tool results and their content', () => {
    const result = block.map((b) => ({ ...b, type: 'tool_result' }))
    fc.assert(
      fc.property(fc.array(fc.oneof(result, block), { maxLength: 2 }), (v) => {
        agree(ToolResultListCheck, ToolResultBlockSchema.array(), v)
        const content = z.array(z.discriminatedUnion('type', [TextBlockSchema, ImageBlockSchema]))
        agree(ToolResultContentCheck, content, v)
      }),
      { numRuns: 2000 },
    )
  })

  test('property: tool definitions, one and a list', () => {
    const tool = obj(['name', 'description', 'inputSchema']).map((t) => ({
      name: 'ok_name',
      description: '',
      inputSchema: { type: 'object' },
      ...t,
    }))
    const schema = obj(['type', 'properties', 'required'])
    const tools = fc.array(
      fc.oneof(
        tool,
        schema.map((inputSchema) => ({ name: 'a', description: '', inputSchema })),
      ),
      { maxLength: 2 },
    )
    fc.assert(
      fc.property(tools, (list) => {
        agree(ToolListCheck, ToolDefinitionSchema.array(), list)
        for (const t of list) agree(ToolDefinitionCheck, ToolDefinitionSchema, t)
      }),
      { numRuns: 2000 },
    )
  })
})

describe('what the checks say', () => {
  test('a bad block deep in a long history is named by its path', () => {
    const history = Array.from({ length: 300 }, (_, i) => textMessage('user', `m${i}`))
    const bad = [...history, { role: 'user', content: [{ type: 'text', text: 7 }] }]
    expect(() => parseWith(MessageListCheck, bad, 'messages')).toThrow(
      'Invalid messages: 300.content.0.text: expected a string, got 7',
    )
  })

  test('an unknown block type is named at its type, with the types there are', () => {
    const r = MessageListCheck.safeParse([{ role: 'user', content: [{ type: 'video' }] }])
    expect(r.success).toBe(false)
    if (r.success) return
    expect(r.error.issues[0]).toEqual({
      path: [0, 'content', 0, 'type'],
      message:
        'expected "text", "image", "thinking", "redacted_thinking", "tool_call" or "tool_result", got "video"',
    })
  })

  test('a tool name and a tool call nested too deep say why', () => {
    const error = (() => {
      try {
        parseWith(ToolDefinitionCheck, { name: 'a b', description: '', inputSchema: {} }, 'tool')
      } catch (e) {
        return e
      }
    })()
    expect(ValidationError.isInstance(error)).toBe(true)
    expect((error as ValidationError).issues).toEqual([
      { path: 'name', message: 'tool names are 1-64 characters of [a-zA-Z0-9_-]' },
      { path: 'inputSchema.type', message: 'expected "object", got undefined' },
    ])
    let input: Record<string, unknown> = { a: 1 }
    for (let i = 0; i < 70; i++) input = { a: input }
    const call = [
      { role: 'assistant', content: [{ type: 'tool_call', id: 'c', name: 't', input }] },
    ]
    expect(MessageListCheck.safeParse(call)).toMatchObject({
      success: false,
      error: {
        issues: [
          {
            path: [0, 'content', 0, 'input'],
            message: 'tool call input nests deeper than 64 levels',
          },
        ],
      },
    })
  })
})
