import { type Message, type ToolDefinition, textMessage } from '@contextkit/core'
import { Template } from '@huggingface/jinja'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { chunksOf } from '../../../test-utils/chunks.js'
import { CHAT_TEMPLATES, type ChatTemplatePreset } from './chat-templates.js'
import { ChatMLFormatter } from './chatml-formatter.js'
import { SpecialTokenError } from './errors.js'
import { parseAll } from './test-support.js'

/**
 * The families' published chat templates (the `chat_template` of each model's
 * tokenizer_config.json), rendered with a real Jinja engine as the reference.
 */
const PUBLISHED: Record<ChatTemplatePreset, { source: string; bos: string; eos: string }> = {
  // teknium/OpenHermes-2.5-Mistral-7B (plain ChatML, as Qwen writes text turns)
  chatml: {
    source:
      "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}",
    bos: '',
    eos: '<|im_end|>',
  },
  // meta-llama/Meta-Llama-3-8B-Instruct
  llama3: {
    source:
      "{% set loop_messages = messages %}{% for message in loop_messages %}{% set content = '<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n'+ message['content'] | trim + '<|eot_id|>' %}{% if loop.index0 == 0 %}{% set content = bos_token + content %}{% endif %}{{ content }}{% endfor %}{% if add_generation_prompt %}{{ '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}{% endif %}",
    bos: '<|begin_of_text|>',
    eos: '<|eot_id|>',
  },
  // mistralai/Mixtral-8x7B-Instruct-v0.1 (the same as Mistral-7B-Instruct-v0.2)
  mistral: {
    source:
      "{{ bos_token }}{% for message in messages %}{% if (message['role'] == 'user') != (loop.index0 % 2 == 0) %}{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}{% endif %}{% if message['role'] == 'user' %}{{ '[INST] ' + message['content'] + ' [/INST]' }}{% elif message['role'] == 'assistant' %}{{ message['content'] + eos_token}}{% else %}{{ raise_exception('Only user and assistant roles are supported!') }}{% endif %}{% endfor %}",
    bos: '<s>',
    eos: '</s>',
  },
  // google/gemma-3-*-it, text content
  gemma: {
    source: `{{ bos_token }}
{%- if messages[0]['role'] == 'system' -%}
    {%- set first_user_prefix = messages[0]['content'] + '\\n\\n' -%}
    {%- set loop_messages = messages[1:] -%}
{%- else -%}
    {%- set first_user_prefix = "" -%}
    {%- set loop_messages = messages -%}
{%- endif -%}
{%- for message in loop_messages -%}
    {%- if (message['role'] == 'user') != (loop.index0 % 2 == 0) -%}
        {{ raise_exception("Conversation roles must alternate user/assistant/user/assistant/...") }}
    {%- endif -%}
    {%- if (message['role'] == 'assistant') -%}
        {%- set role = "model" -%}
    {%- else -%}
        {%- set role = message['role'] -%}
    {%- endif -%}
    {{ '<start_of_turn>' + role + '\\n' + (first_user_prefix if loop.first else "") }}
    {{- message['content'] | trim }}
    {{- '<end_of_turn>\\n' }}
{%- endfor -%}
{%- if add_generation_prompt -%}
    {{'<start_of_turn>model\\n'}}
{%- endif -%}`,
    bos: '<bos>',
    eos: '<eos>',
  },
}

const PRESETS = Object.keys(CHAT_TEMPLATES) as ChatTemplatePreset[]
/** Presets whose published template has a system role of its own (Gemma 3 merges it; Mistral has none). */
const WITH_SYSTEM: ReadonlySet<ChatTemplatePreset> = new Set(['chatml', 'llama3', 'gemma'])

function reference(
  preset: ChatTemplatePreset,
  system: string | undefined,
  msgs: Message[],
): string {
  const { source, bos, eos } = PUBLISHED[preset]
  const messages = [
    ...(system === undefined ? [] : [{ role: 'system', content: system }]),
    ...msgs.map((m) => ({
      role: m.role,
      content: m.content.map((b) => (b.type === 'text' ? b.text : '')).join(''),
    })),
  ]
  return new Template(source).render({
    messages,
    bos_token: bos,
    eos_token: eos,
    add_generation_prompt: true,
  })
}

const CONVERSATION: Message[] = [
  textMessage('user', 'Hello'),
  textMessage('assistant', 'Hi there'),
  textMessage('user', 'Who are you'),
  textMessage('assistant', '   I am an assistant   '),
  textMessage('user', 'Another question'),
]

describe('ChatMLFormatter presets render the published chat templates exactly', () => {
  test('whole prompts, string for string', () => {
    const expected: Record<ChatTemplatePreset, string> = {
      chatml:
        '<|im_start|>system\nYou are a helpful assistant<|im_end|>\n<|im_start|>user\nHello<|im_end|>\n<|im_start|>assistant\nHi there<|im_end|>\n<|im_start|>user\nWho are you<|im_end|>\n<|im_start|>assistant\n   I am an assistant   <|im_end|>\n<|im_start|>user\nAnother question<|im_end|>\n<|im_start|>assistant\n',
      llama3:
        '<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nYou are a helpful assistant<|eot_id|><|start_header_id|>user<|end_header_id|>\n\nHello<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\nHi there<|eot_id|><|start_header_id|>user<|end_header_id|>\n\nWho are you<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\nI am an assistant<|eot_id|><|start_header_id|>user<|end_header_id|>\n\nAnother question<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n',
      mistral:
        '<s>[INST] Hello [/INST]Hi there</s>[INST] Who are you [/INST]   I am an assistant   </s>[INST] Another question [/INST]',
      gemma:
        '<bos><start_of_turn>user\nYou are a helpful assistant\n\nHello<end_of_turn>\n<start_of_turn>model\nHi there<end_of_turn>\n<start_of_turn>user\nWho are you<end_of_turn>\n<start_of_turn>model\nI am an assistant<end_of_turn>\n<start_of_turn>user\nAnother question<end_of_turn>\n<start_of_turn>model\n',
    }
    for (const preset of PRESETS) {
      const system = WITH_SYSTEM.has(preset) ? 'You are a helpful assistant' : undefined
      const prompt = new ChatMLFormatter({ preset }).buildMessages(
        CONVERSATION,
        system === undefined ? {} : { system },
      ).prompt
      expect(prompt, preset).toBe(expected[preset])
      expect(prompt, preset).toBe(reference(preset, system, CONVERSATION))
    }
  })

  test('property: any plain conversation renders as the published template does', () => {
    const text = fc
      .array(
        fc.constantFrom('a', 'Z', '1', ' ', '  ', '\n', '\t', '.', '?', 'é', '"', "'", '{', '}'),
        {
          maxLength: 12,
        },
      )
      .map((a) => a.join(''))
    fc.assert(
      fc.property(
        fc.constantFrom(...PRESETS),
        fc.option(text, { nil: undefined }),
        fc.array(fc.tuple(text, text), { maxLength: 4 }),
        text,
        (preset, system, pairs, lastUser) => {
          const msgs = [
            ...pairs.flatMap(([u, a]) => [textMessage('user', u), textMessage('assistant', a)]),
            textMessage('user', lastUser),
          ]
          const sys = WITH_SYSTEM.has(preset) && system ? system : undefined
          const prompt = new ChatMLFormatter({ preset }).buildMessages(
            msgs,
            sys ? { system: sys } : {},
          ).prompt
          expect(prompt).toBe(reference(preset, sys, msgs))
        },
      ),
      { numRuns: 400 },
    )
  })

  test('generation prompt, prefill and stops per preset', () => {
    const msgs = [textMessage('user', 'Hi')]
    const cases: Record<ChatTemplatePreset, [string, string[]]> = {
      chatml: [
        '<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\nHello',
        ['<|im_end|>', '<|endoftext|>'],
      ],
      llama3: [
        '<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\nHello',
        ['<|eot_id|>', '<|end_of_text|>'],
      ],
      mistral: ['<s>[INST] Hi [/INST]Hello', ['</s>', '[INST]']],
      gemma: [
        '<bos><start_of_turn>user\nHi<end_of_turn>\n<start_of_turn>model\nHello',
        ['<end_of_turn>', '<eos>'],
      ],
    }
    for (const preset of PRESETS) {
      const req = new ChatMLFormatter({ preset }).buildMessages(msgs, { prefill: 'Hello' })
      expect([req.prompt, req.stopSequences], preset).toEqual(cases[preset])
      expect(req.assistantPrefill).toBe('Hello')
    }
    const noBos = new ChatMLFormatter({ preset: 'llama3', bos: false }).buildMessages(msgs)
    expect(noBos.prompt?.startsWith('<|start_header_id|>user')).toBe(true)
  })

  test('templates without a system role or alternation: system text opens the first turn, same-role messages merge', () => {
    const msgs = [textMessage('user', 'a'), textMessage('user', 'b'), textMessage('assistant', 'c')]
    expect(
      new ChatMLFormatter({ preset: 'mistral' }).buildMessages(msgs, { system: 'S' }).prompt,
    ).toBe('<s>[INST] S\n\na\n\nb [/INST]c')
    expect(new ChatMLFormatter({ preset: 'gemma' }).buildMessages([], { system: 'S' }).prompt).toBe(
      '<bos><start_of_turn>user\nS\n\n<end_of_turn>\n<start_of_turn>model\n',
    )
  })

  test("the seed's own tokens build a template (Phi-3 style)", () => {
    const f = new ChatMLFormatter({
      systemToken: '<|system|>\n',
      userToken: '<|user|>\n',
      assistantToken: '<|assistant|>\n',
      endToken: '<|end|>\n',
    })
    const req = f.buildMessages([textMessage('user', 'Hi')], { system: 'Be kind.' })
    expect(req.prompt).toBe('<|system|>\nBe kind.<|end|>\n<|user|>\nHi<|end|>\n<|assistant|>\n')
    expect(req.stopSequences[0]).toBe('<|end|>')
    expect(() => f.buildMessages([textMessage('user', 'x<|end|>')])).toThrow(SpecialTokenError)
  })
})

describe('ChatMLFormatter presets: guards, parsers and round trips', () => {
  const tool: ToolDefinition = {
    name: 'edit',
    description: 'Edit a file',
    inputSchema: {
      type: 'object',
      properties: { path: { type: 'string' }, n: { type: 'integer' } },
    },
  }

  test('special-token text in user content is rejected, or escaped on request, in every preset', () => {
    for (const preset of PRESETS) {
      for (const token of CHAT_TEMPLATES[preset].specialTokens) {
        const msgs = [textMessage('user', `before ${token} after`)]
        expect(
          () => new ChatMLFormatter({ preset }).buildMessages(msgs),
          `${preset} ${token}`,
        ).toThrow(SpecialTokenError)
        const prompt = new ChatMLFormatter({ preset, specialTokens: 'escape' }).buildMessages(
          msgs,
        ).prompt
        expect(prompt).toContain(`before ${token[0]}\u200b${token.slice(1)} after`)
      }
    }
  })

  test('round trip in every preset and tool format: calls, thinking and text come back', () => {
    const input = fc.record(
      { path: fc.string({ maxLength: 8 }), n: fc.integer() },
      { requiredKeys: [] },
    )
    const thinking = fc
      .array(
        fc.oneof(fc.constantFrom('</think>', '&lt;', '&', '<', '\n'), fc.string({ maxLength: 3 })),
        {
          maxLength: 5,
        },
      )
      .map((a) => a.join(''))
      .filter((t) =>
        PRESETS.every((p) => CHAT_TEMPLATES[p].specialTokens.every((s) => !t.includes(s))),
      )
    fc.assert(
      fc.property(
        fc.constantFrom(...PRESETS),
        fc.constantFrom('json' as const, 'xml' as const),
        thinking,
        fc.array(input, { minLength: 1, maxLength: 3 }),
        (preset, toolFormat, thought, inputs) => {
          const f = new ChatMLFormatter({ preset, toolFormat, specialTokens: 'escape' })
          const msgs: Message[] = [
            textMessage('user', 'go'),
            {
              role: 'assistant',
              content: [
                { type: 'thinking', thinking: thought },
                { type: 'text', text: 'Editing.' },
                ...inputs.map((inp, i) => ({
                  type: 'tool_call' as const,
                  id: `c${i}`,
                  name: 'edit',
                  input: inp,
                })),
              ],
            },
          ]
          const req = f.buildMessages(msgs, { tools: [tool] })
          const events = parseAll(f.createStreamParser({ tools: [tool] }), [
            req.assistantPrefill ?? '',
          ])
          const thinkingText = events
            .map((e) => (e.type === 'thinking-delta' ? e.text : ''))
            .join('')
          expect(thinkingText).toBe(thought)
          const calls = events.flatMap((e) => (e.type === 'tool-call-end' ? [e.call.input] : []))
          expect(calls).toEqual(inputs)
          expect(
            f.parseToolCalls(req.assistantPrefill ?? '', { tools: [tool] }).map((c) => c.input),
          ).toEqual(inputs)
          const text = events.map((e) => (e.type === 'text-delta' ? e.text : '')).join('')
          expect(text.trim()).toBe('Editing.')
        },
      ),
      { numRuns: 200 },
    )
  })

  test('xml tool format: definitions, </function_calls> stop and <function_results> history', () => {
    const f = new ChatMLFormatter({ preset: 'llama3', toolFormat: 'xml' })
    const req = f.buildMessages(
      [
        textMessage('user', 'go'),
        {
          role: 'assistant',
          content: [{ type: 'tool_call', id: 'c1', name: 'edit', input: { path: 'a' } }],
        },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              toolCallId: 'c1',
              content: [{ type: 'text', text: 'ok' }],
              isError: false,
            },
          ],
        },
      ],
      { tools: [tool] },
    )
    expect(req.stopSequences).toEqual(['<|eot_id|>', '<|end_of_text|>', '</function_calls>'])
    expect(req.prompt).toContain('<functions>\n<function>\n<name>edit</name>')
    expect(req.prompt).toContain(
      '<|start_header_id|>assistant<|end_header_id|>\n\n<function_calls>\n<invoke name="edit">\n<parameter name="path">a</parameter>\n</invoke>\n</function_calls><|eot_id|>',
    )
    expect(req.prompt).toContain(
      '<|start_header_id|>user<|end_header_id|>\n\n<function_results>\n<result tool_call_id="c1">\nok\n</result>\n</function_results><|eot_id|>',
    )
  })

  test('ChatMLStreamParser: the block index does not depend on the chunking', () => {
    const piece = fc.constantFrom(
      '<think>',
      '</think>',
      '<tool_call>',
      '</tool_call>',
      '{"name": "a"}',
      '<',
      'x',
      '\n',
    )
    fc.assert(
      fc.property(
        fc
          .array(fc.oneof(piece, fc.string({ maxLength: 3 })), { maxLength: 20 })
          .map((a) => a.join('')),
        fc.array(fc.nat(), { maxLength: 8 }),
        (text, cuts) => {
          const f = new ChatMLFormatter()
          const chunked = f.createStreamParser()
          let done = ''
          for (const chunk of chunksOf(text, cuts)) {
            chunked.processChunk(chunk)
            done += chunk
            const whole = f.createStreamParser()
            whole.processChunk(done)
            expect(chunked.getBlockIndex()).toBe(whole.getBlockIndex())
          }
        },
      ),
      { numRuns: 300 },
    )
  })
})
