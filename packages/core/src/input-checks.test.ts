import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { isContentBlockArray, isMessageArray, isSectionArray, isToolArray } from './input-checks.js'
import { MAX_JSON_DEPTH } from './json-depth.js'
import { ContentBlockSchema, MessageSchema, ToolDefinitionSchema } from './message-schemas.js'
import { SectionSchema } from './section-schema.js'

/** `{ a: { a: … 1 } }`, `depth` objects deep. */
function nested(depth: number): Record<string, unknown> {
  let v: Record<string, unknown> = { a: 1 }
  for (let i = 1; i < depth; i++) v = { a: v }
  return v
}

/** Values near the valid shapes, with every field sometimes wrong. */
const field = fc.oneof(
  fc.constantFrom('', 'x', 'text', 'image', 'thinking', 'tool_call', 'tool_result', 'user'),
  fc.constantFrom('assistant', 'image/png', 'image/bmp', 'stable', 'volatile', 'object', 'a b'),
  fc.constantFrom('before', 'after', 'middle', 'redacted_thinking'),
  fc.constantFrom(true, false, 0, 1.5, Number.NaN, Number.POSITIVE_INFINITY, null, undefined),
  fc.constantFrom([], {}, [''], { type: 'object' }, new Date(0), Object.create(null)),
)
const obj = (keys: string[]) =>
  fc.dictionary(fc.constantFrom(...keys), fc.oneof(field, fc.array(field, { maxLength: 2 })), {
    maxKeys: keys.length,
  })
const blockKeys = ['type', 'text', 'mediaType', 'data', 'thinking', 'signature', 'id', 'name']
const block = fc.oneof(
  obj([...blockKeys, 'input', 'raw', 'toolCallId', 'content', 'isError']),
  fc.record({
    type: fc.constant('tool_result'),
    toolCallId: fc.constantFrom('c', ''),
    content: fc.array(obj(blockKeys), { maxLength: 2 }),
    isError: fc.constantFrom(true, undefined, 'no'),
  }),
  fc.record({
    type: fc.constant('tool_call'),
    id: fc.constantFrom('c', ''),
    name: fc.constant('t'),
    input: fc.constantFrom(
      {},
      { a: 1 },
      [],
      null,
      new Date(0),
      Object.create(null),
      nested(MAX_JSON_DEPTH),
      nested(MAX_JSON_DEPTH + 1),
    ),
  }),
)
const message = fc.oneof(
  obj(['role', 'participant', 'cacheBreakpoint']).chain((m) =>
    fc.array(block, { maxLength: 3 }).map((content) => ({ ...m, content })),
  ),
  fc.record({
    role: fc.constantFrom('user', 'assistant'),
    content: fc.array(block, { maxLength: 3 }),
  }),
)

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
