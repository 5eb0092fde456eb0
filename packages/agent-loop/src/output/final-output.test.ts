// runAgent({ output }) on every provider, against testkit with the real clients.
import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import { getModelInfo, sessionMessages, textMessage, ValidationError } from '@contextkit/core'
import { AnthropicXmlFormatter, CompletionsFormatter } from '@contextkit/formatters'
import { type Script, startAnthropicEmulator } from '@contextkit/testkit'
import { describe, expect, expectTypeOf, test } from 'vitest'
import { z } from 'zod'
import { type AiSdkLanguageModel, aiSdkProvider } from '../ai-sdk/ai-sdk-provider.js'
import { toolChoiceInstruction } from '../call/text-tool-choice.js'
import { openAICompatibleCompletionsProvider } from '../completions/completions-provider.js'
import { openAIChatProvider } from '../openai/chat-provider.js'
import { runAgent } from '../run/run-agent.js'
import { collect, emulated, memorySessionStore, onCleanup } from '../test-support.js'
import { defineTool } from '../tools/define-tool.js'
import { OutputValidationError } from './errors.js'
import { OUTPUT_TOOL_NAME } from './output-schema.js'

const Animal = z.object({ name: z.string(), legs: z.number().int() })
const lookup = defineTool({
  name: 'lookup',
  description: 'Look an animal up',
  input: z.object({ name: z.string() }),
  execute: ({ name }) => `${name}: four legs`,
})
const toolStep = { toolUse: { name: 'lookup', input: { name: 'wombat' } } }
const outputCall = (input: Record<string, unknown>) => ({
  toolUse: { name: OUTPUT_TOOL_NAME, input },
})

async function emulator(script: Script) {
  const emu = await startAnthropicEmulator({ script })
  onCleanup(() => emu.close())
  return emu
}
const bodiesOf = (emu: { requests: { path: string; body: unknown }[] }, path: string) =>
  emu.requests.filter((r) => r.path === path).map((r) => r.body as Record<string, unknown>)

describe('structured output on Anthropic: a forced final tool after the tools', () => {
  test('tools first, then the output; typed, validated, and not saved to the session', async () => {
    const store = memorySessionStore()
    const { provider, bodies } = await emulated([
      toolStep,
      'A wombat has four legs.',
      outputCall({ name: 'wombat', legs: 4 }),
    ])
    const run = runAgent({
      provider,
      model: 'claude-haiku-4-5',
      messages: [textMessage('user', 'Describe a wombat')],
      tools: [lookup],
      session: { store, id: 'o' },
      output: Animal,
    })
    await collect(run.events)
    const result = await run.result
    expectTypeOf(result.output).toEqualTypeOf<{ name: string; legs: number } | undefined>()
    expect(result.error).toBeUndefined()
    expect(result.stopReason).toBe('end_turn')
    expect(result.output).toEqual({ name: 'wombat', legs: 4 })
    expect(result.text).toBe('A wombat has four legs.')
    expect(result.steps).toBe(3)
    const out = bodies()[2]!
    expect((out as { tool_choice?: unknown }).tool_choice).toEqual({
      type: 'tool',
      name: OUTPUT_TOOL_NAME,
    })
    expect(out.tools?.map((t) => t.name)).toEqual(['lookup', OUTPUT_TOOL_NAME])
    expect(out.messages.map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
    ])
    // the session keeps the conversation; the output call is the run's, not the session's
    const saved = sessionMessages(store.data.get('o') ?? [])
    expect(saved).toHaveLength(4)
    expect(JSON.stringify(saved)).not.toContain(OUTPUT_TOOL_NAME)
    expect(result.messages).toEqual(saved.slice(1))
  })

  test('an invalid output gets one repair call that shows the error as the tool result', async () => {
    const { provider, bodies } = await emulated([
      'Wombat.',
      outputCall({ name: 'wombat', legs: 'four' }),
      outputCall({ name: 'wombat', legs: 4 }),
    ])
    const result = await runAgent({
      provider,
      model: 'claude-haiku-4-5',
      messages: [textMessage('user', 'Describe a wombat')],
      output: Animal,
    }).result
    expect(result.output).toEqual({ name: 'wombat', legs: 4 })
    const repair = bodies()[2]!
    const last = repair.messages.at(-1)!.content as Array<Record<string, unknown>>
    expect(last[0]).toMatchObject({ type: 'tool_result', is_error: true })
    expect(JSON.stringify(last[0])).toContain('legs')
  })

  test('still invalid after the repair: OutputValidationError, stopReason error', async () => {
    const { provider } = await emulated(['Wombat.', 'no tool', outputCall({ legs: 1.5 })])
    const result = await runAgent({
      provider,
      model: 'claude-haiku-4-5',
      messages: [textMessage('user', 'Describe a wombat')],
      output: Animal,
    }).result
    expect(result.stopReason).toBe('error')
    expect(result.output).toBeUndefined()
    expect(OutputValidationError.isInstance(result.error)).toBe(true)
    expect(result.error?.code).toBe('agent_loop_output_invalid')
    expect(result.error?.message).toMatch(/name/)
    expect(result.steps).toBe(3)
  })
  test('the XML transcript format: the output tool is written into the prompt and parsed back', async () => {
    const { provider, bodies } = await emulated([
      'A wombat.',
      `<function_calls>\n<invoke name="${OUTPUT_TOOL_NAME}">\n<parameter name="name">wombat</parameter>\n<parameter name="legs">4</parameter>\n</invoke>\n</function_calls>`,
    ])
    const result = await runAgent({
      provider,
      model: 'claude-haiku-4-5',
      formatter: new AnthropicXmlFormatter({ toolMode: 'xml' }),
      messages: [textMessage('user', 'Describe a wombat')],
      output: Animal,
    }).result
    expect(result.error).toBeUndefined()
    expect(result.output).toEqual({ name: 'wombat', legs: 4 })
    const system = (bodies()[1]?.system ?? []).map((b) => b.text).join('\n')
    expect(system).toContain(OUTPUT_TOOL_NAME)
    expect(system).toContain(toolChoiceInstruction({ tool: OUTPUT_TOOL_NAME }))
  })
})

describe('structured output on the other providers', () => {
  test('OpenAI chat: response_format json_schema (strict) on the output call', async () => {
    const emu = await emulator([toolStep, 'Four legs.', '{"name":"wombat","legs":4}'])
    const result = await runAgent({
      provider: openAIChatProvider({ baseURL: `${emu.url}/v1`, apiKey: 'k' }),
      model: 'claude-haiku-4-5',
      messages: [textMessage('user', 'Describe a wombat')],
      tools: [lookup],
      output: Animal,
    }).result
    expect(result.error).toBeUndefined()
    expect(result.output).toEqual({ name: 'wombat', legs: 4 })
    const bodies = bodiesOf(emu, '/v1/chat/completions')
    expect(bodies[0]).not.toHaveProperty('response_format')
    expect(bodies[2]?.response_format).toEqual({
      type: 'json_schema',
      json_schema: {
        name: OUTPUT_TOOL_NAME,
        strict: true,
        schema: {
          type: 'object',
          properties: expect.objectContaining({ name: { type: 'string' } }),
          required: ['name', 'legs'],
          additionalProperties: false,
        },
      },
    })
    expect(bodies[2]?.tool_choice).toBe('none')
  })

  test('a schema that is not an object is wrapped as { value } and unwrapped', async () => {
    const emu = await emulator(['Some.', '{"value":["wombat","emu"]}'])
    const result = await runAgent({
      provider: openAIChatProvider({ baseURL: `${emu.url}/v1`, apiKey: 'k' }),
      model: 'claude-haiku-4-5',
      messages: [textMessage('user', 'Name two animals')],
      output: z.array(z.string()).length(2),
    }).result
    expectTypeOf(result.output).toEqualTypeOf<string[] | undefined>()
    expect(result.output).toEqual(['wombat', 'emu'])
  })

  test('AI SDK (openai-compatible): its responseFormat reaches the wire as response_format', async () => {
    const emu = await emulator(['Four legs.', '{"name":"wombat","legs":4}'])
    const compatible = createOpenAICompatible({
      name: 'local',
      baseURL: `${emu.url}/v1`,
      apiKey: 'k',
      supportsStructuredOutputs: true,
    })
    const result = await runAgent({
      provider: aiSdkProvider(
        compatible.chatModel('claude-haiku-4-5') as unknown as AiSdkLanguageModel,
      ),
      model: 'claude-haiku-4-5',
      messages: [textMessage('user', 'Describe a wombat')],
      output: Animal,
    }).result
    expect(result.error).toBeUndefined()
    expect(result.output).toEqual({ name: 'wombat', legs: 4 })
    const body = bodiesOf(emu, '/v1/chat/completions')[1]
    expect(body?.response_format).toMatchObject({ type: 'json_schema' })
  })

  test('completions (base model): the schema in the prompt, the reply parsed as JSON, repaired once', async () => {
    const emu = await emulator([
      'A wombat.',
      'It is {"name": "wombat"}',
      '```json\n{"name": "wombat", "legs": 4}\n```',
    ])
    const result = await runAgent({
      provider: openAICompatibleCompletionsProvider({ baseURL: `${emu.url}/v1` }),
      model: getModelInfo('qwen2.5-7b-base'),
      formatter: new CompletionsFormatter(),
      messages: [textMessage('user', 'Describe a wombat')],
      output: Animal,
    }).result
    expect(result.error).toBeUndefined()
    expect(result.output).toEqual({ name: 'wombat', legs: 4 })
    const prompts = bodiesOf(emu, '/v1/completions').map((b) => String(b.prompt))
    expect(prompts[1]).toContain('"required":["name","legs"]')
    expect(prompts[2]).toContain('not JSON')
  })

  test('output must be a zod schema', () => {
    const provider = { name: 'x', stream: () => (async function* () {})() }
    expect(() =>
      runAgent({
        provider,
        model: 'claude-haiku-4-5',
        messages: [textMessage('user', 'Hi')],
        output: { type: 'object' } as never,
      }),
    ).toThrow(ValidationError)
  })
})
