import { type ToolDefinition, textMessage } from '@contextkit/core'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { AnthropicXmlFormatter } from './anthropic-xml-formatter.js'
import type { FormattedMessage, StreamEvent } from './types.js'

const weather: ToolDefinition = {
  name: 'get_weather',
  description: 'Weather for a city',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
}

function allText(messages: FormattedMessage[]): string {
  return messages
    .flatMap((m) => m.content)
    .map((b) => (b.type === 'text' ? b.text : `[${b.type}]`))
    .join('')
}

describe('AnthropicXmlFormatter round trips', () => {
  test('round trip: tool calls rendered in history parse back to the same calls', () => {
    const f = new AnthropicXmlFormatter()
    const tool: ToolDefinition = {
      name: 'do_it',
      description: '',
      inputSchema: {
        type: 'object',
        properties: {
          s: { type: 'string' },
          n: { type: 'integer' },
          x: { type: 'number' },
          b: { type: 'boolean' },
          o: { type: 'object' },
          a: { type: 'array' },
        },
      },
    }
    const input = fc.record(
      {
        s: fc.string(),
        n: fc.oneof(
          fc.integer(),
          fc
            .bigInt({ min: 2n ** 53n, max: 2n ** 70n })
            .filter((v) => BigInt(Number(v)) !== v)
            .map(String),
        ),
        x: fc.double({ noNaN: true, noDefaultInfinity: true }).filter((v) => !Object.is(v, -0)),
        b: fc.boolean(),
        o: fc.dictionary(fc.string({ maxLength: 4 }), fc.string({ maxLength: 6 }), {
          maxKeys: 3,
        }),
        a: fc.array(fc.integer(), { maxLength: 4 }),
      },
      { requiredKeys: [] },
    )
    fc.assert(
      fc.property(fc.array(input, { minLength: 1, maxLength: 3 }), (inputs) => {
        const calls = inputs.map((inp, i) => ({
          type: 'tool_call' as const,
          id: `c${i}`,
          name: 'do_it',
          input: inp,
        }))
        const req = f.buildMessages([{ role: 'assistant', content: calls }])
        const text = req.assistantPrefill ?? ''
        const parsed = f.parseToolCalls(text, { tools: [tool] })
        expect(parsed.map((c) => c.input)).toEqual(inputs)
        expect(f.hasToolUse(text)).toBe(true)
      }),
      { numRuns: 200 },
    )
  })
})

describe('AnthropicXmlFormatter, a whole tool turn', () => {
  const NS = ['ant', 'ml'].join('')
  const ns = (text: string) =>
    text.replaceAll('</', '\u0000').replaceAll('<', `<${NS}:`).replaceAll('\u0000', `</${NS}:`)

  test('stream a namespaced reply, run the call, and continue the same turn', () => {
    const f = new AnthropicXmlFormatter()
    const user = textMessage('user', 'Weather?')
    const first = f.buildMessages([user], { tools: [weather] })
    const parser = f.createStreamParser({ tools: [weather] })
    parser.push(first.assistantPrefill ?? '')
    // the API stops at </function_calls> (a stop sequence), so it never arrives
    const reply = ` On it.\n${ns('<function_calls>\n<invoke name="get_weather">\n<parameter name="city">Oslo</parameter>\n</invoke>\n')}`
    const events: StreamEvent[] = []
    for (let i = 0; i < reply.length; i += 5)
      events.push(...parser.processChunk(reply.slice(i, i + 5)))
    events.push(...parser.flush())
    const calls = events.flatMap((e) => (e.type === 'tool-call-end' ? [e.call] : []))
    expect(calls.map((c) => [c.id, c.name, c.input])).toEqual([
      ['toolu_xml_1', 'get_weather', { city: 'Oslo' }],
    ])
    const text = events.flatMap((e) => (e.type === 'text-delta' ? [e.text] : [])).join('')
    const next = f.buildMessages(
      [
        user,
        { role: 'assistant', content: [{ type: 'text', text: text.trim() }, ...calls] },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              toolCallId: 'toolu_xml_1',
              content: [{ type: 'text', text: '-3°C' }],
              isError: false,
            },
          ],
        },
      ],
      { tools: [weather] },
    )
    expect(allText(next.messages)).toBe(
      `[Transcript start]User: Weather?\n\nAssistant: On it.\n<function_calls>\n${ns('<invoke name="get_weather">\n<parameter name="city">Oslo</parameter>\n</invoke>')}\n</function_calls>\n<function_results>\n<result tool_call_id="toolu_xml_1">\n-3°C\n</result>\n</function_results>`,
    )
  })
})
