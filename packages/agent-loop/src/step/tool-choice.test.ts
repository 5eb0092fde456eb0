// toolChoice through every provider and format, against testkit with the real clients.
import { createAnthropic } from '@ai-sdk/anthropic'
import { getModelInfo, textMessage, ValidationError } from '@contextkit/core'
import { AnthropicXmlFormatter, ChatMLFormatter } from '@contextkit/formatters'
import { type Script, startAnthropicEmulator } from '@contextkit/testkit'
import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import { type AiSdkLanguageModel, aiSdkProvider } from '../ai-sdk/ai-sdk-provider.js'
import { TOOL_CHOICE_SECTION_ID, toolChoiceInstruction } from '../call/text-tool-choice.js'
import { openAICompatibleCompletionsProvider } from '../completions/completions-provider.js'
import { openAIChatProvider } from '../openai/chat-provider.js'
import type { ModelProvider } from '../provider/contract.js'
import type { ToolChoice } from '../provider/tool-choice.js'
import { runAgent } from '../run/run-agent.js'
import { collect, emulated, onCleanup } from '../test-support.js'
import { defineTool } from '../tools/define-tool.js'

const lookup = defineTool({
  name: 'lookup',
  description: 'Look a word up',
  input: z.object({ word: z.string() }),
  execute: ({ word }) => `${word}: a small furry animal`,
})
const spell = defineTool({
  name: 'spell',
  description: 'Spell a word',
  input: z.object({ word: z.string() }),
  execute: ({ word }) => word.split('').join('-'),
})

async function emulator(script: Script) {
  const emu = await startAnthropicEmulator({ script })
  onCleanup(() => emu.close())
  return emu
}

const bodiesOf = (emu: { requests: { path: string; body: unknown }[] }, path: string) =>
  emu.requests.filter((r) => r.path === path).map((r) => r.body as Record<string, unknown>)

async function finished(run: ReturnType<typeof runAgent>) {
  await collect(run.events)
  const result = await run.result
  expect(result.error).toBeUndefined()
  return result
}

/** A run offering `lookup` and `spell` with `toolChoice`, to its end. */
function runChoosing(provider: ModelProvider, toolChoice: ToolChoice) {
  return finished(
    runAgent({
      provider,
      model: 'claude-haiku-4-5',
      messages: [textMessage('user', 'Hi')],
      tools: [lookup, spell],
      toolChoice,
    }),
  )
}

const choices: Array<[ToolChoice, unknown, unknown, unknown]> = [
  ['auto', { type: 'auto' }, 'auto', { type: 'auto' }],
  ['any', { type: 'any' }, 'required', { type: 'required' }],
  ['none', { type: 'none' }, 'none', { type: 'none' }],
  [
    { tool: 'spell' },
    { type: 'tool', name: 'spell' },
    { type: 'function', function: { name: 'spell' } },
    { type: 'tool', toolName: 'spell' },
  ],
]

describe('toolChoice on every provider', () => {
  for (const [choice, anthropic, chat] of choices) {
    const name = JSON.stringify(choice)
    test(`Anthropic (real SDK) sends tool_choice for ${name}`, async () => {
      const { provider, bodies } = await emulated(['Done.'])
      await runChoosing(provider, choice)
      expect((bodies()[0] as unknown as { tool_choice: unknown }).tool_choice).toEqual(anthropic)
    })

    test(`OpenAI chat sends tool_choice for ${name}`, async () => {
      const emu = await emulator(['Done.'])
      const provider = openAIChatProvider({ baseURL: `${emu.url}/v1`, apiKey: 'k' })
      await runChoosing(provider, choice)
      expect(bodiesOf(emu, '/v1/chat/completions')[0]?.tool_choice).toEqual(chat)
    })
  }

  test('the AI SDK provider passes it as its toolChoice (over @ai-sdk/anthropic)', async () => {
    const emu = await emulator(['Done.'])
    const anthropic = createAnthropic({ baseURL: `${emu.url}/v1`, apiKey: 'k' })
    const provider = aiSdkProvider(anthropic('claude-haiku-4-5') as unknown as AiSdkLanguageModel)
    await runChoosing(provider, { tool: 'spell' })
    expect(bodiesOf(emu, '/v1/messages')[0]?.tool_choice).toMatchObject({
      type: 'tool',
      name: 'spell',
    })
  })

  test('no toolChoice: no tool_choice field at all (the provider default)', async () => {
    const { provider, bodies } = await emulated(['Done.'])
    await finished(
      runAgent({
        provider,
        model: 'claude-haiku-4-5',
        messages: [textMessage('user', 'Hi')],
        tools: [lookup],
      }),
    )
    expect(bodies()[0]).not.toHaveProperty('tool_choice')
  })

  test('a forced choice with thinking on is sent as auto, with a warning', async () => {
    const { provider, bodies } = await emulated(['Done.'])
    const result = await finished(
      runAgent({
        provider,
        model: 'claude-haiku-4-5',
        messages: [textMessage('user', 'Hi')],
        tools: [lookup],
        thinking: { enabled: true, budgetTokens: 1024 },
        toolChoice: 'any',
      }),
    )
    expect((bodies()[0] as unknown as { tool_choice: unknown }).tool_choice).toEqual({
      type: 'auto',
    })
    expect(result.warnings.map((w) => w.code)).toContain('agent_loop_tool_choice_relaxed')
  })
})

describe('toolChoice in formats that write tools into the prompt', () => {
  test("the XML transcript: 'none' leaves the tools out, a named tool is stated", async () => {
    const { provider, bodies } = await emulated(['Done.', 'Done.'])
    const formatter = new AnthropicXmlFormatter({ toolMode: 'xml' })
    const base = {
      provider,
      model: 'claude-haiku-4-5',
      formatter,
      messages: [textMessage('user', 'Hi')],
      tools: [lookup, spell],
    }
    await finished(runAgent({ ...base, toolChoice: 'none' }))
    await finished(runAgent({ ...base, toolChoice: { tool: 'spell' } }))
    const [none, named] = bodies().map((b) => (b.system ?? []).map((s) => s.text).join('\n'))
    expect(none).not.toContain('lookup')
    expect(none).not.toContain(toolChoiceInstruction('any'))
    expect(named).toContain('lookup')
    expect(named).toContain(toolChoiceInstruction({ tool: 'spell' }))
    expect(bodies()[1]).not.toHaveProperty('tool_choice')
  })

  test("ChatML over the completions provider: 'any' is stated in the prompt, 'none' drops <tools>", async () => {
    const emu = await emulator(['Done.<|im_end|>', 'Done.<|im_end|>'])
    const provider = openAICompatibleCompletionsProvider({ baseURL: `${emu.url}/v1` })
    const base = {
      provider,
      model: getModelInfo('qwen2.5-7b-base'),
      formatter: new ChatMLFormatter(),
      messages: [textMessage('user', 'Hi')],
      tools: [lookup],
    }
    await finished(runAgent({ ...base, toolChoice: 'any' }))
    await finished(runAgent({ ...base, toolChoice: 'none' }))
    const [any, none] = bodiesOf(emu, '/v1/completions').map((b) => String(b.prompt))
    expect(any).toContain('<tools>')
    expect(any).toContain(toolChoiceInstruction('any'))
    expect(none).not.toContain('<tools>')
    expect(none).not.toContain(TOOL_CHOICE_SECTION_ID)
  })
})

describe('toolChoice checks', () => {
  test('a named tool that is not in tools is a ValidationError, thrown at once', () => {
    const emuLess = { name: 'x', stream: () => (async function* () {})() }
    let thrown: unknown
    try {
      runAgent({
        provider: emuLess,
        model: 'claude-haiku-4-5',
        messages: [textMessage('user', 'Hi')],
        tools: [lookup],
        toolChoice: { tool: 'nope' },
      })
    } catch (error) {
      thrown = error
    }
    expect(ValidationError.isInstance(thrown)).toBe(true)
    expect((thrown as Error).message).toContain('no tool is named "nope"')
    expect((thrown as Error).message).toContain('"lookup"')
  })

  test('a value that is no tool choice is refused by the options check', () => {
    const emuLess = { name: 'x', stream: () => (async function* () {})() }
    expect(() =>
      runAgent({
        provider: emuLess,
        model: 'claude-haiku-4-5',
        messages: [textMessage('user', 'Hi')],
        toolChoice: 'required' as never,
      }),
    ).toThrow(ValidationError)
  })
})
