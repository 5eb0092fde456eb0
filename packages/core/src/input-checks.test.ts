import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { block, field, message, nested, obj } from './input-arbitraries.fixture.js'
import { isContentBlockArray, isMessageArray, isSectionArray, isToolArray } from './input-checks.js'
import { MAX_JSON_DEPTH } from './json-depth.js'
import { ContentBlockSchema, MessageSchema, ToolDefinitionSchema } from './message-schemas.js'
import { SectionSchema } from './section-schema.js'

describe('fast input checks agree with the zod schemas', () => {
  test('property: a message list passes the fast check only if zod accepts it', () => {
    let accepted = 0
    fc.assert(
      fc.property(fc.oneof(fc.array(message, { maxLength: 3 }), field), (v) => {
        if (!isMessageArray(v)) return
        accepted++
        expect(MessageSchema.array().safeParse(v).success).toBe(true)
      }),
      { numRuns: 3000 },
    )
    // the generator reaches the accepting side often enough for the property to mean something
    expect(accepted).toBeGreaterThan(300)
  })

  test('property: a content block list passes the fast check only if zod accepts it', () => {
    let accepted = 0
    fc.assert(
      fc.property(fc.oneof(fc.array(block, { maxLength: 3 }), field), (v) => {
        if (!isContentBlockArray(v)) return
        accepted++
        expect(ContentBlockSchema.array().safeParse(v).success).toBe(true)
      }),
      { numRuns: 2000 },
    )
    expect(accepted).toBeGreaterThan(100)
  })

  test('a tool call input deeper than MAX_JSON_DEPTH fails the fast check, as it fails the schema', () => {
    const call = (input: Record<string, unknown>) => [
      { role: 'assistant', content: [{ type: 'tool_call', id: 'c', name: 't', input }] },
    ]
    expect(isMessageArray(call(nested(MAX_JSON_DEPTH)))).toBe(true)
    expect(isMessageArray(call(nested(MAX_JSON_DEPTH + 1)))).toBe(false)
    expect(MessageSchema.array().safeParse(call(nested(MAX_JSON_DEPTH + 1))).success).toBe(false)
    expect(isMessageArray(call(nested(10_000)))).toBe(false)
  })

  test('property: tools and sections pass only if zod accepts them', () => {
    const tool = obj(['name', 'description', 'inputSchema']).map((t) => ({
      name: 'ok_name',
      description: '',
      inputSchema: { type: 'object' },
      ...t,
    }))
    const schema = obj(['type', 'properties', 'required'])
    const section = obj([
      'id',
      'text',
      'priority',
      'cache',
      'shorter',
      'placement',
      'required',
    ]).map((s) => ({
      id: 's',
      text: '',
      priority: 1,
      cache: 'stable',
      ...s,
    }))
    const _acceptedTools = 0
    const _acceptedSections = 0
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            tool,
            schema.map((inputSchema) => ({ name: 'a', description: '', inputSchema })),
          ),
        ),
        fc.array(section, { maxLength: 2 }),
        (tools, sections) => {
          if (isToolArray(tools))
            expect(ToolDefinitionSchema.array().safeParse(tools).success).toBe(true)
          if (isSectionArray(sections))
            expect(SectionSchema.array().safeParse(sections).success).toBe(true)
        },
      ),
      { numRuns: 2000 },
    )
  })
})
