// End to end: runAgent → anthropicProvider → the real SDK → testkit over 127.0.0.1.
import { textMessage } from '@contextkit/core'
import { AnthropicXmlFormatter, NativeFormatter } from '@contextkit/formatters'
import type { ScriptRequest } from '@contextkit/testkit'
import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import type { AgentEvent } from '../events/events.js'
import { runAgent } from '../run/run-agent.js'
import { collect, emulated, wireText } from '../test-support.js'
import { defineTool } from '../tools/define-tool.js'

const calls: string[] = []
const weather = defineTool({
  name: 'get_weather',
  description: 'Current weather for a city',
  input: z.object({ city: z.string() }),
  execute: ({ city }) => {
    calls.push(city)
    return `${city}: sunny, 21 °C`
  },
})

/** Text of every tool result in the request, in order (native blocks or XML transcript). */
function resultsSeen(req: ScriptRequest): string {
  return req.messages
    .flatMap((m) => m.content)
    .map((b) => {
      if (b.type === 'tool_result') {
        const c = b.content
        return typeof c === 'string' ? c : JSON.stringify(c)
      }
      return b.type === 'text' ? String(b.text) : ''
    })
    .join('\n')
}

const xmlCall = (city: string) =>
  `Checking ${city}.\n<function_calls>\n<invoke name="get_weather">\n<parameter name="city">${city}</parameter>\n</invoke>\n</function_calls>\nNever seen: the stop sequence cut here.`

const modes = [
  {
    name: 'native tools',
    formatter: new NativeFormatter(),
    first: { text: 'Checking Paris.', toolUse: { name: 'get_weather', input: { city: 'Paris' } } },
    second: { text: 'And Rome.', toolUse: { name: 'get_weather', input: { city: 'Rome' } } },
  },
  {
    name: 'the XML transcript',
    formatter: new AnthropicXmlFormatter({ toolMode: 'xml' }),
    first: xmlCall('Paris'),
    second: xmlCall('Rome'),
  },
] as const

describe('multi-turn tool use through the real SDK with 1-byte TCP writes', () => {
  for (const mode of modes) {
    test(mode.name, async () => {
      calls.length = 0
      const { bodies, provider, emulator } = await emulated(
        [
          mode.first,
          (req) => (resultsSeen(req).includes('Paris: sunny') ? mode.second : 'no Paris result'),
          (req) =>
            resultsSeen(req).includes('Rome: sunny')
              ? 'Paris and Rome are both sunny.'
              : 'no Rome result',
        ],
        { transport: { writeSize: 1 } },
      )
      const run = runAgent({
        provider,
        model: 'claude-haiku-4-5',
        formatter: mode.formatter,
        system: 'You are a weather assistant.',
        messages: [textMessage('user', 'Weather in Paris and Rome?')],
        tools: [weather],
      })
      const events = await collect(run.events)
      const result = await run.result
      expect(emulator.failures).toEqual([])
      expect(result.error).toBeUndefined()
      expect(result.stopReason).toBe('end_turn')
      expect(result.text).toBe('Paris and Rome are both sunny.')
      expect(calls).toEqual(['Paris', 'Rome'])
      expect(result.steps).toBe(3)
      expect(result.messages.map((m) => m.role)).toEqual([
        'assistant',
        'user',
        'assistant',
        'user',
        'assistant',
      ])
      const toolCalls = events.filter(
        (e): e is Extract<AgentEvent, { type: 'tool-call' }> => e.type === 'tool-call',
      )
      expect(toolCalls.map((e) => e.call.input)).toEqual([{ city: 'Paris' }, { city: 'Rome' }])
      // the text arrived in many pieces, whole
      expect(events.filter((e) => e.type === 'text-delta').length).toBeGreaterThan(3)
      expect(bodies()).toHaveLength(3)
      if (mode.formatter.name === 'native') {
        expect(bodies()[0]?.tools?.map((t) => t.name)).toEqual(['get_weather'])
        expect(bodies()[0]?.messages.at(-1)?.role).toBe('user')
      } else {
        // the transcript: a prefilled assistant turn, </function_calls> as a stop sequence
        expect(bodies()[0]?.tools).toBeUndefined()
        expect(bodies()[0]?.stop_sequences).toContain('</function_calls>')
        expect(bodies()[0]?.messages.at(-1)?.role).toBe('assistant')
        // the API left the matched stop sequence out; the loop put it back before parsing, so
        // the call replayed to the model on the next call is whole, and nothing after it
        const replayed = bodies()
          .slice(1)
          .map((b) => b.messages.map(wireText).join('\n'))
        expect(replayed[0]).toContain(
          '<parameter name="city">Paris</parameter>\n</invoke>\n</function_calls>',
        )
        expect(replayed[1]).toContain('Rome</parameter>\n</invoke>\n</function_calls>')
        expect(replayed.join('')).not.toContain('Never seen')
        const call = result.messages[0]?.content.find((b) => b.type === 'tool_call')
        // the call keeps its verbatim XML for exact replay
        expect(call?.type === 'tool_call' && call.raw).toContain('<invoke name="get_weather">')
      }
    })
  }
})
