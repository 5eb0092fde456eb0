import { textMessage, ValidationError } from '@contextkit/core'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import type { AgentEvent } from '../events/events.js'
import { runAgent } from '../run/run-agent.js'
import { collect, emulated } from '../test-support.js'
import { ToolInputError } from './errors.js'
import { jsonSchemaTool } from './json-schema-tool.js'

const schema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  properties: {
    city: { type: 'string', minLength: 1 },
    days: { type: 'integer', minimum: 1, default: 3 },
    contact: { type: 'string', format: 'email' },
    tags: { type: 'array', items: { type: 'string' } },
  },
  required: ['city'],
  additionalProperties: false,
}

const forecast = (seen: unknown[] = []) =>
  jsonSchemaTool<{ city: string; days: number }>({
    name: 'forecast',
    description: 'Weather forecast',
    inputSchema: schema,
    timeoutMs: 1234,
    execute: (input) => {
      seen.push(input)
      return `${input.city}: ${input.days} days`
    },
  })

describe('jsonSchemaTool', () => {
  test('the model sees the schema as given (without $schema); defineTool’s options are kept', () => {
    const tool = forecast()
    expect(tool.inputSchema).toEqual({ ...schema, $schema: undefined })
    expect(tool.inputSchema).not.toHaveProperty('$schema')
    expect(tool.timeoutMs).toBe(1234)
    expect(Object.isFrozen(tool)).toBe(true)
  })

  test('validates with Ajv: every bad path named, formats checked, defaults filled into a copy', async () => {
    const tool = forecast()
    const bad = await tool.input.safeParseAsync({ days: 0, contact: 'nope', extra: 1, tags: [2] })
    expect(bad.success).toBe(false)
    const paths = bad.error?.issues.map((i) => i.path.join('.')).sort()
    expect(paths).toEqual(['', 'city', 'contact', 'days', 'tags.0'])
    const input = { city: 'Oslo' }
    const good = await tool.input.safeParseAsync(input)
    expect(good.data).toEqual({ city: 'Oslo', days: 3 })
    expect(input).toEqual({ city: 'Oslo' }) // the model's input itself is never changed
  })

  test('draft-07 schemas (as many MCP servers send) validate under their own dialect', async () => {
    const tool = jsonSchemaTool({
      name: 'tuple',
      description: 'A pair',
      inputSchema: {
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        properties: { pair: { type: 'array', items: [{ type: 'string' }, { type: 'number' }] } },
        definitions: { unused: { type: 'string' } },
      },
      execute: () => 'ok',
    })
    expect((await tool.input.safeParseAsync({ pair: ['a', 1] })).success).toBe(true)
    expect((await tool.input.safeParseAsync({ pair: [1, 'a'] })).success).toBe(false)
  })

  test('two tools with the same $id do not collide', () => {
    const make = (name: string) =>
      jsonSchemaTool({
        name,
        description: '',
        inputSchema: { $id: 'https://example.com/input', type: 'object' },
        execute: () => '',
      })
    expect(() => [make('a'), make('b'), make('a')]).not.toThrow()
  })

  test('bad options are ValidationErrors naming what is wrong', () => {
    const execute = () => ''
    const base = { name: 'n', description: '', execute }
    expect(() => jsonSchemaTool(null as never)).toThrow(/jsonSchemaTool: options must be/)
    expect(() => jsonSchemaTool({ ...base, inputSchema: null as never })).toThrow(
      /options\.inputSchema must be a JSON Schema object/,
    )
    expect(() => jsonSchemaTool({ ...base, inputSchema: { type: 'string' } })).toThrow(
      ValidationError,
    )
    expect(() =>
      jsonSchemaTool({ ...base, inputSchema: { type: 'object', properties: { a: { type: 5 } } } }),
    ).toThrow(/not a valid JSON Schema/)
    expect(() =>
      jsonSchemaTool({ ...base, name: 'has space', inputSchema: { type: 'object' } }),
    ).toThrow(ValidationError)
    expect(() =>
      jsonSchemaTool({ ...base, inputSchema: { type: 'object' }, nope: 1 } as never),
    ).toThrow(ValidationError)
  })

  test('property: conforming inputs pass unchanged, a non-integer `days` fails at that path', async () => {
    const tool = forecast()
    await fc.assert(
      fc.asyncProperty(
        fc.record(
          { city: fc.string({ minLength: 1 }), days: fc.integer({ min: 1 }) },
          { requiredKeys: ['city'] },
        ),
        // tool input arrives as JSON, which has no Infinity or NaN (Ajv counts ±Infinity as an
        // integer: `Infinity % 1` is NaN, and `!NaN` is true)
        fc.oneof(
          fc.double({ noInteger: true, noDefaultInfinity: true, noNaN: true }),
          fc.string(),
          fc.boolean(),
          fc.constant(null),
        ),
        async (input, badDays) => {
          const ok = await tool.input.safeParseAsync(input)
          expect(ok.data).toEqual({ days: 3, ...input })
          const bad = await tool.input.safeParseAsync({ ...input, days: badDays })
          expect(bad.error?.issues.map((i) => i.path)).toContainEqual(['days'])
        },
      ),
    )
  })

  test('in a run through the real SDK: a bad call is a ToolInputError result, a good one runs', async () => {
    const seen: unknown[] = []
    const { provider } = await emulated([
      { toolUse: { name: 'forecast', input: { city: '', days: 'two' } } },
      { toolUse: { name: 'forecast', input: { city: 'Oslo' } } },
      'Oslo: 3 days of sun.',
    ])
    const run = runAgent({
      provider,
      model: 'claude-haiku-4-5',
      messages: [textMessage('user', 'Forecast for Oslo?')],
      tools: [forecast(seen)],
    })
    const events = await collect(run.events)
    const result = await run.result
    expect(result.stopReason).toBe('end_turn')
    const results = events.filter(
      (e): e is Extract<AgentEvent, { type: 'tool-result' }> => e.type === 'tool-result',
    )
    expect(ToolInputError.isInstance(results[0]?.error)).toBe(true)
    expect(results[0]?.result.content[0]).toMatchObject({
      text: expect.stringMatching(/city.*days|days.*city/s),
    })
    expect(results[1]?.result).toMatchObject({
      isError: false,
      content: [{ type: 'text', text: 'Oslo: 3 days' }],
    })
    expect(seen).toEqual([{ city: 'Oslo', days: 3 }])
  })
})

test('the durable-run flags pass through: idempotent, and an approval callback that sees the input', async () => {
  const seen: unknown[] = []
  const tool = jsonSchemaTool<{ path: string }>({
    name: 'remove',
    description: 'Remove a file',
    inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    idempotent: true,
    approval: (input) => {
      seen.push(input)
      return input.path.startsWith('tmp/') ? 'allow' : 'ask'
    },
    execute: ({ path }) => `removed ${path}`,
  })
  expect(tool.idempotent).toBe(true)
  expect(typeof tool.approval).toBe('function')
  const decide = tool.approval as Exclude<typeof tool.approval, string | undefined>
  expect(await decide({ path: 'src/a.ts' }, { toolCallId: 'c1', runId: 'r1' })).toBe('ask')
  expect(seen).toEqual([{ path: 'src/a.ts' }])
})
