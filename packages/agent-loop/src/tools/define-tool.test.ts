import { ValidationError } from '@contextkit/core'
import { ToolDefinitionSchema } from '@contextkit/core/schemas'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import { defineTool, toolDefinition, toolOutputContent } from './define-tool.js'
import { ToolOutputError } from './errors.js'

describe('defineTool', () => {
  test('the JSON Schema comes from zod 4 (input side: defaulted fields are optional)', () => {
    const tool = defineTool({
      name: 'search',
      description: 'Search the docs',
      input: z.object({
        query: z.string().describe('What to look for'),
        limit: z.number().int().min(1).default(10),
      }),
      execute: ({ query, limit }) => `${query}:${limit}`,
      timeoutMs: 500,
    })
    expect(tool.inputSchema).toMatchObject({
      type: 'object',
      properties: {
        query: { type: 'string', description: 'What to look for' },
        limit: { type: 'integer', minimum: 1, default: 10 },
      },
      required: ['query'],
    })
    expect(tool.inputSchema).not.toHaveProperty('$schema')
    expect(tool.timeoutMs).toBe(500)
    expect(ToolDefinitionSchema.parse(toolDefinition(tool))).toEqual({
      name: 'search',
      description: 'Search the docs',
      inputSchema: tool.inputSchema,
    })
    expect(Object.isFrozen(tool)).toBe(true)
  })

  test('a bad name, a non-object input or an unrepresentable one is a ValidationError', () => {
    const execute = () => 'x'
    expect(() =>
      defineTool({ name: 'has space', description: '', input: z.object({}), execute }),
    ).toThrow(ValidationError)
    expect(() => defineTool({ name: 'n', description: '', input: z.string(), execute })).toThrow(
      ValidationError,
    )
    expect(() =>
      defineTool({ name: 'n', description: '', input: z.object({ d: z.date() }), execute }),
    ).toThrow(ValidationError)
    expect(() =>
      defineTool({ name: 'n', description: '', input: { parse() {} } as never, execute }),
    ).toThrow(ValidationError)
    expect(() => defineTool(null as never)).toThrow(ValidationError)
  })
})

describe('toolOutputContent', () => {
  test('strings, content blocks, objects and nothing', () => {
    expect(toolOutputContent('hi')).toEqual([{ type: 'text', text: 'hi' }])
    const image = { type: 'image' as const, mediaType: 'image/png' as const, data: 'AAAA' }
    expect(toolOutputContent([{ type: 'text', text: 'a' }, image])).toEqual([
      { type: 'text', text: 'a' },
      image,
    ])
    expect(toolOutputContent({ a: 1, big: 2n })).toEqual([
      { type: 'text', text: '{"a":1,"big":"2"}' },
    ])
    expect(toolOutputContent(undefined)).toEqual([])
    expect(toolOutputContent(null)).toEqual([{ type: 'text', text: 'null' }])
    expect(toolOutputContent([1, 2])).toEqual([{ type: 'text', text: '[1,2]' }])
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    expect(() => toolOutputContent(cyclic)).toThrow(ToolOutputError)
  })

  test('property: any JSON value becomes text content that parses back to it', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const content = toolOutputContent(value)
        expect(content).toHaveLength(1)
        const block = content[0]!
        expect(block.type).toBe('text')
        const text = block.type === 'text' ? block.text : ''
        if (typeof value === 'string') expect(text).toBe(value)
        else expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)))
      }),
    )
  })
})
