import type { Message, ToolDefinition } from '@contextkit/core'
import { Template } from '@huggingface/jinja'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { ChatMLFormatter } from './chatml-formatter.js'
import { UnsupportedContentError } from './errors.js'
import { mistralCallId } from './native-tool-formats.js'
import { parseAll } from './test-support.js'

/**
 * The families' published chat templates with tools (the `chat_template` of each model's
 * tokenizer_config.json), rendered with a real Jinja engine as the reference.
 */
const QWEN25 = String.raw`{%- if tools %}
    {{- '<|im_start|>system\n' }}
    {%- if messages[0]['role'] == 'system' %}
        {{- messages[0]['content'] }}
    {%- else %}
        {{- 'You are Qwen, created by Alibaba Cloud. You are a helpful assistant.' }}
    {%- endif %}
    {{- "\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\nYou are provided with function signatures within <tools></tools> XML tags:\n<tools>" }}
    {%- for tool in tools %}
        {{- "\n" }}
        {{- tool | tojson }}
    {%- endfor %}
    {{- "\n</tools>\n\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n{\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call><|im_end|>\n" }}
{%- else %}
    {%- if messages[0]['role'] == 'system' %}
        {{- '<|im_start|>system\n' + messages[0]['content'] + '<|im_end|>\n' }}
    {%- else %}
        {{- '<|im_start|>system\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\n' }}
    {%- endif %}
{%- endif %}
{%- for message in messages %}
    {%- if (message.role == "user") or (message.role == "system" and not loop.first) or (message.role == "assistant" and not message.tool_calls) %}
        {{- '<|im_start|>' + message.role + '\n' + message.content + '<|im_end|>' + '\n' }}
    {%- elif message.role == "assistant" %}
        {{- '<|im_start|>' + message.role }}
        {%- if message.content %}
            {{- '\n' + message.content }}
        {%- endif %}
        {%- for tool_call in message.tool_calls %}
            {%- if tool_call.function is defined %}
                {%- set tool_call = tool_call.function %}
            {%- endif %}
            {{- '\n<tool_call>\n{"name": "' }}
            {{- tool_call.name }}
            {{- '", "arguments": ' }}
            {{- tool_call.arguments | tojson }}
            {{- '}\n</tool_call>' }}
        {%- endfor %}
        {{- '<|im_end|>\n' }}
    {%- elif message.role == "tool" %}
        {%- if (loop.index0 == 0) or (messages[loop.index0 - 1].role != "tool") %}
            {{- '<|im_start|>user' }}
        {%- endif %}
        {{- '\n<tool_response>\n' }}
        {{- message.content }}
        {{- '\n</tool_response>' }}
        {%- if loop.last or (messages[loop.index0 + 1].role != "tool") %}
            {{- '<|im_end|>\n' }}
        {%- endif %}
    {%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}
    {{- '<|im_start|>assistant\n' }}
{%- endif %}
`

const LLAMA31 = String.raw`{{- bos_token }}
{%- if custom_tools is defined %}
    {%- set tools = custom_tools %}
{%- endif %}
{%- if not tools_in_user_message is defined %}
    {%- set tools_in_user_message = true %}
{%- endif %}
{%- if not date_string is defined %}
    {%- set date_string = "26 Jul 2024" %}
{%- endif %}
{%- if not tools is defined %}
    {%- set tools = none %}
{%- endif %}

{#- This block extracts the system message, so we can slot it into the right place. #}
{%- if messages[0]['role'] == 'system' %}
    {%- set system_message = messages[0]['content']|trim %}
    {%- set messages = messages[1:] %}
{%- else %}
    {%- set system_message = "" %}
{%- endif %}

{#- System message + builtin tools #}
{{- "<|start_header_id|>system<|end_header_id|>\n\n" }}
{%- if builtin_tools is defined or tools is not none %}
    {{- "Environment: ipython\n" }}
{%- endif %}
{%- if builtin_tools is defined %}
    {{- "Tools: " + builtin_tools | reject('equalto', 'code_interpreter') | join(", ") + "\n\n"}}
{%- endif %}
{{- "Cutting Knowledge Date: December 2023\n" }}
{{- "Today Date: " + date_string + "\n\n" }}
{%- if tools is not none and not tools_in_user_message %}
    {{- "You have access to the following functions. To call a function, please respond with JSON for a function call." }}
    {{- 'Respond in the format {"name": function name, "parameters": dictionary of argument name and its value}.' }}
    {{- "Do not use variables.\n\n" }}
    {%- for t in tools %}
        {{- t | tojson(indent=4) }}
        {{- "\n\n" }}
    {%- endfor %}
{%- endif %}
{{- system_message }}
{{- "<|eot_id|>" }}

{#- Custom tools are passed in a user message with some extra guidance #}
{%- if tools_in_user_message and not tools is none %}
    {#- Extract the first user message so we can plug it in here #}
    {%- if messages | length != 0 %}
        {%- set first_user_message = messages[0]['content']|trim %}
        {%- set messages = messages[1:] %}
    {%- else %}
        {{- raise_exception("Cannot put tools in the first user message when there's no first user message!") }}
{%- endif %}
    {{- '<|start_header_id|>user<|end_header_id|>\n\n' -}}
    {{- "Given the following functions, please respond with a JSON for a function call " }}
    {{- "with its proper arguments that best answers the given prompt.\n\n" }}
    {{- 'Respond in the format {"name": function name, "parameters": dictionary of argument name and its value}.' }}
    {{- "Do not use variables.\n\n" }}
    {%- for t in tools %}
        {{- t | tojson(indent=4) }}
        {{- "\n\n" }}
    {%- endfor %}
    {{- first_user_message + "<|eot_id|>"}}
{%- endif %}

{%- for message in messages %}
    {%- if not (message.role == 'ipython' or message.role == 'tool' or 'tool_calls' in message) %}
        {{- '<|start_header_id|>' + message['role'] + '<|end_header_id|>\n\n'+ message['content'] | trim + '<|eot_id|>' }}
    {%- elif 'tool_calls' in message %}
        {%- if not message.tool_calls|length == 1 %}
            {{- raise_exception("This model only supports single tool-calls at once!") }}
        {%- endif %}
        {%- set tool_call = message.tool_calls[0].function %}
        {%- if builtin_tools is defined and tool_call.name in builtin_tools %}
            {{- '<|start_header_id|>assistant<|end_header_id|>\n\n' -}}
            {{- "<|python_tag|>" + tool_call.name + ".call(" }}
            {%- for arg_name, arg_val in tool_call.arguments | items %}
                {{- arg_name + '="' + arg_val + '"' }}
                {%- if not loop.last %}
                    {{- ", " }}
                {%- endif %}
                {%- endfor %}
            {{- ")" }}
        {%- else  %}
            {{- '<|start_header_id|>assistant<|end_header_id|>\n\n' -}}
            {{- '{"name": "' + tool_call.name + '", ' }}
            {{- '"parameters": ' }}
            {{- tool_call.arguments | tojson }}
            {{- "}" }}
        {%- endif %}
        {%- if builtin_tools is defined %}
            {#- This means we're in ipython mode #}
            {{- "<|eom_id|>" }}
        {%- else %}
            {{- "<|eot_id|>" }}
        {%- endif %}
    {%- elif message.role == "tool" or message.role == "ipython" %}
        {{- "<|start_header_id|>ipython<|end_header_id|>\n\n" }}
        {%- if message.content is mapping or message.content is iterable %}
            {{- message.content | tojson }}
        {%- else %}
            {{- message.content }}
        {%- endif %}
        {{- "<|eot_id|>" }}
    {%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}
    {{- '<|start_header_id|>assistant<|end_header_id|>\n\n' }}
{%- endif %}
`

const MISTRAL_V03 = String.raw`{%- if messages[0]["role"] == "system" %}
    {%- set system_message = messages[0]["content"] %}
    {%- set loop_messages = messages[1:] %}
{%- else %}
    {%- set loop_messages = messages %}
{%- endif %}
{%- if not tools is defined %}
    {%- set tools = none %}
{%- endif %}
{%- set user_messages = loop_messages | selectattr("role", "equalto", "user") | list %}

{#- This block checks for alternating user/assistant messages, skipping tool calling messages #}
{%- set ns = namespace() %}
{%- set ns.index = 0 %}
{%- for message in loop_messages %}
    {%- if not (message.role == "tool" or message.role == "tool_results" or (message.tool_calls is defined and message.tool_calls is not none)) %}
        {%- if (message["role"] == "user") != (ns.index % 2 == 0) %}
            {{- raise_exception("After the optional system message, conversation roles must alternate user/assistant/user/assistant/...") }}
        {%- endif %}
        {%- set ns.index = ns.index + 1 %}
    {%- endif %}
{%- endfor %}

{{- bos_token }}
{%- for message in loop_messages %}
    {%- if message["role"] == "user" %}
        {%- if tools is not none and (message == user_messages[-1]) %}
            {{- "[AVAILABLE_TOOLS] [" }}
            {%- for tool in tools %}
                {%- set tool = tool.function %}
                {{- '{"type": "function", "function": {' }}
                {%- for key, val in tool.items() if key != "return" %}
                    {%- if val is string %}
                        {{- '"' + key + '": "' + val + '"' }}
                    {%- else %}
                        {{- '"' + key + '": ' + val|tojson }}
                    {%- endif %}
                    {%- if not loop.last %}
                        {{- ", " }}
                    {%- endif %}
                {%- endfor %}
                {{- "}}" }}
                {%- if not loop.last %}
                    {{- ", " }}
                {%- else %}
                    {{- "]" }}
                {%- endif %}
            {%- endfor %}
            {{- "[/AVAILABLE_TOOLS]" }}
            {%- endif %}
        {%- if loop.last and system_message is defined %}
            {{- "[INST] " + system_message + "\n\n" + message["content"] + "[/INST]" }}
        {%- else %}
            {{- "[INST] " + message["content"] + "[/INST]" }}
        {%- endif %}
    {%- elif message.tool_calls is defined and message.tool_calls is not none %}
        {{- "[TOOL_CALLS] [" }}
        {%- for tool_call in message.tool_calls %}
            {%- set out = tool_call.function|tojson %}
            {{- out[:-1] }}
            {%- if not tool_call.id is defined or tool_call.id|length != 9 %}
                {{- raise_exception("Tool call IDs should be alphanumeric strings with length 9!") }}
            {%- endif %}
            {{- ', "id": "' + tool_call.id + '"}' }}
            {%- if not loop.last %}
                {{- ", " }}
            {%- else %}
                {{- "]" + eos_token }}
            {%- endif %}
        {%- endfor %}
    {%- elif message["role"] == "assistant" %}
        {{- " " + message["content"]|trim + eos_token}}
    {%- elif message["role"] == "tool_results" or message["role"] == "tool" %}
        {%- if message.content is defined and message.content.content is defined %}
            {%- set content = message.content.content %}
        {%- else %}
            {%- set content = message.content %}
        {%- endif %}
        {{- '[TOOL_RESULTS] {"content": ' + content|string + ", " }}
        {%- if not message.tool_call_id is defined or message.tool_call_id|length != 9 %}
            {{- raise_exception("Tool call IDs should be alphanumeric strings with length 9!") }}
        {%- endif %}
        {{- '"call_id": "' + message.tool_call_id + '"}[/TOOL_RESULTS]' }}
    {%- else %}
        {{- raise_exception("Only user and assistant roles are supported, with the exception of an initial optional system message!") }}
    {%- endif %}
{%- endfor %}
`

const TOOLS: ToolDefinition[] = [
  {
    name: 'get_weather',
    description: 'Current weather for a city',
    inputSchema: {
      type: 'object',
      properties: { city: { type: 'string', description: 'City name, e.g. "Paris"' } },
      required: ['city'],
    },
  },
  {
    name: 'add',
    description: 'Add two numbers',
    inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
  },
]

type Step = {
  ask: string
  calls: { id: string; name: string; input: Record<string, unknown>; result: string }[]
  answer: string
}

/** A conversation as core messages, and as the messages and tools the templates read. */
function conversation(system: string, steps: Step[], final: string) {
  const core: Message[] = []
  const hf: Record<string, unknown>[] = system ? [{ role: 'system', content: system }] : []
  for (const s of steps) {
    core.push({ role: 'user', content: [{ type: 'text', text: s.ask }] })
    hf.push({ role: 'user', content: s.ask })
    if (s.calls.length > 0) {
      core.push({
        role: 'assistant',
        content: s.calls.map((c) => ({
          type: 'tool_call' as const,
          id: c.id,
          name: c.name,
          input: c.input,
        })),
      })
      hf.push({
        role: 'assistant',
        content: '',
        tool_calls: s.calls.map((c) => ({
          id: c.id,
          type: 'function',
          function: { name: c.name, arguments: c.input },
        })),
      })
      core.push({
        role: 'user',
        content: s.calls.map((c) => ({
          type: 'tool_result' as const,
          toolCallId: c.id,
          content: [{ type: 'text' as const, text: c.result }],
          isError: false,
        })),
      })
      for (const c of s.calls)
        hf.push({ role: 'tool', tool_call_id: c.id, name: c.name, content: c.result })
    }
    core.push({ role: 'assistant', content: [{ type: 'text', text: s.answer }] })
    hf.push({ role: 'assistant', content: s.answer })
  }
  core.push({ role: 'user', content: [{ type: 'text', text: final }] })
  hf.push({ role: 'user', content: final })
  const tools = TOOLS.map((t) => ({
    type: 'function',
    function: { name: t.name, description: t.description, parameters: t.inputSchema },
  }))
  return { core, hf, tools }
}

const WEATHER: Step[] = [
  {
    ask: 'Weather in Paris?',
    calls: [
      {
        id: 'aB3dE6gH9',
        name: 'get_weather',
        input: { city: 'Paris' },
        result: '{"sky": "sunny", "c": 21}',
      },
    ],
    answer: 'It is sunny, 21 °C.',
  },
]

function reference(
  source: string,
  hf: Record<string, unknown>[],
  tools: unknown[],
  generation = true,
): string {
  return new Template(source).render({
    messages: hf,
    tools,
    bos_token: source === MISTRAL_V03 ? '<s>' : '<|begin_of_text|>',
    eos_token: '</s>',
    add_generation_prompt: generation,
  })
}

const FAMILIES = [
  { preset: 'chatml' as const, source: QWEN25, generation: true },
  { preset: 'llama3' as const, source: LLAMA31, generation: true },
  { preset: 'mistral' as const, source: MISTRAL_V03, generation: false },
]

describe("toolFormat 'native': the family's published template with tools, string for string", () => {
  for (const { preset, source, generation } of FAMILIES) {
    test(`${preset}: a tool round trip, then a new question`, () => {
      const { core, hf, tools } = conversation(
        'You answer weather questions.',
        WEATHER,
        'And in Rome?',
      )
      const f = new ChatMLFormatter({ preset, toolFormat: 'native' })
      const built = f.buildMessages(core, { system: 'You answer weather questions.', tools: TOOLS })
      expect(built.prompt).toBe(reference(source, hf, tools, generation))
    })
  }

  test('property: random conversations render as each template does', () => {
    const text = fc
      .string({ minLength: 1, maxLength: 30 })
      .filter((s) => s.trim() === s && !/[<>[\]{}"\\]/.test(s))
    const call = fc.record({
      id: fc.stringMatching(/^[A-Za-z0-9]{9}$/),
      name: fc.constantFrom('get_weather', 'add'),
      input: fc.dictionary(fc.constantFrom('city', 'a', 'b'), fc.oneof(fc.integer(), text), {
        maxKeys: 2,
      }),
      result: text,
    })
    const step = fc.record({
      ask: text,
      calls: fc.array(call, { minLength: 0, maxLength: 1 }),
      answer: text,
    })
    fc.assert(
      fc.property(
        fc.constantFrom(...FAMILIES),
        fc.option(text, { nil: '' }),
        fc.array(step, { maxLength: 3 }),
        text,
        (fam, system, steps, final) => {
          const { core, hf, tools } = conversation(system, steps, final)
          const f = new ChatMLFormatter({ preset: fam.preset, toolFormat: 'native' })
          const built = f.buildMessages(core, { ...(system ? { system } : {}), tools: TOOLS })
          expect(built.prompt).toBe(reference(fam.source, hf, tools, fam.generation))
        },
      ),
      { numRuns: 150 },
    )
  })

  test('Qwen: several calls in one reply, as the template writes them', () => {
    const steps: Step[] = [
      {
        ask: 'Paris and Rome?',
        calls: [
          { id: 'c1', name: 'get_weather', input: { city: 'Paris' }, result: 'sunny' },
          { id: 'c2', name: 'get_weather', input: { city: 'Rome' }, result: 'rain' },
        ],
        answer: 'Sunny and rain.',
      },
    ]
    const { core, hf, tools } = conversation('', steps, 'Thanks')
    const built = new ChatMLFormatter({ toolFormat: 'native' }).buildMessages(core, {
      tools: TOOLS,
    })
    expect(built.prompt).toBe(reference(QWEN25, hf, tools))
  })
})

/** `text` in pieces of `size` characters. */
function pieces(text: string, size: number): string[] {
  const out: string[] = []
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size))
  return out
}

/** The text and the calls a parser finds in `chunks`. */
function parsed(parser: ReturnType<ChatMLFormatter['createStreamParser']>, chunks: string[]) {
  const events = parseAll(parser, chunks)
  return {
    text: events.map((e) => (e.type === 'text-delta' ? e.text : '')).join(''),
    calls: events.flatMap((e) => (e.type === 'tool-call-end' ? [e.call] : [])),
  }
}

describe('native tool calls are parsed back', () => {
  test('Llama 3.1: a bare JSON reply, in any chunking, and with <|python_tag|>', () => {
    const f = new ChatMLFormatter({ preset: 'llama3', toolFormat: 'native' })
    const reply = '{"name": "get_weather", "parameters": {"city": "Paris"}}'
    for (const chunks of [[reply], pieces(reply, 1), pieces(reply, 7)]) {
      const { calls, text } = parsed(f.createStreamParser(), chunks)
      expect(text).toBe('')
      expect(calls.map((c) => [c.name, c.input])).toEqual([['get_weather', { city: 'Paris' }]])
    }
    expect(f.parseToolCalls(`<|python_tag|>${reply}`)).toMatchObject([{ name: 'get_weather' }])
    const prose = parsed(f.createStreamParser(), pieces('It is {probably} sunny.', 3))
    expect(prose.text).toBe('It is {probably} sunny.')
    expect(prose.calls).toEqual([])
    const notACall = parsed(f.createStreamParser(), ['{"just": "data"}'])
    expect(notACall.text).toBe('{"just": "data"}')
    expect(notACall.calls).toEqual([])
  })

  test('Mistral: text, then [TOOL_CALLS] with two calls, the marker split across chunks', () => {
    const f = new ChatMLFormatter({ preset: 'mistral', toolFormat: 'native' })
    const reply =
      'Let me check. [TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Paris"}}, {"name": "add", "arguments": {"a": 1, "b": 2}, "id": "xY7kq2Lm9"}]</s>'
    for (const size of [1, 4, 11, reply.length]) {
      const { calls, text } = parsed(f.createStreamParser(), pieces(reply, size))
      // white space that streamed before the marker arrived stays text
      expect(text.trimEnd()).toBe('Let me check.')
      expect(calls.map((c) => c.name)).toEqual(['get_weather', 'add'])
      expect(calls[1]?.id).toBe('xY7kq2Lm9')
    }
  })

  test('a Mistral call id that is not 9 alphanumerics is mapped to one, the same for call and result', () => {
    const id = mistralCallId('toolu_native_1')
    expect(id).toMatch(/^[A-Za-z0-9]{9}$/)
    expect(mistralCallId('toolu_native_1')).toBe(id)
    expect(mistralCallId('toolu_native_2')).not.toBe(id)
    const f = new ChatMLFormatter({ preset: 'mistral', toolFormat: 'native' })
    const built = f.buildMessages(
      [
        { role: 'user', content: [{ type: 'text', text: 'go' }] },
        {
          role: 'assistant',
          content: [{ type: 'tool_call', id: 'toolu_native_1', name: 'add', input: { a: 1 } }],
        },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              toolCallId: 'toolu_native_1',
              content: [{ type: 'text', text: '1' }],
              isError: false,
            },
          ],
        },
      ],
      { tools: TOOLS },
    )
    expect(built.prompt?.split(`"${id}"`)).toHaveLength(3)
  })
})

describe('templates that refuse a conversation', () => {
  const assistantFirst: Message[] = [
    { role: 'assistant', content: [{ type: 'text', text: 'Hello!' }] },
    { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
  ]
  test.each(['mistral', 'gemma'] as const)(
    '%s refuses an assistant-first conversation, as its template does',
    (preset) => {
      expect(() => new ChatMLFormatter({ preset }).buildMessages(assistantFirst)).toThrow(
        UnsupportedContentError,
      )
      expect(() =>
        new Template(MISTRAL_V03).render({
          messages: [
            { role: 'assistant', content: 'Hello!' },
            { role: 'user', content: 'Hi' },
          ],
          bos_token: '<s>',
          eos_token: '</s>',
        }),
      ).toThrow()
    },
  )
  test('Mistral native refuses it too; Gemma has no native tool format', () => {
    expect(() =>
      new ChatMLFormatter({ preset: 'mistral', toolFormat: 'native' }).buildMessages(
        assistantFirst,
      ),
    ).toThrow(UnsupportedContentError)
    expect(() => new ChatMLFormatter({ preset: 'gemma', toolFormat: 'native' })).toThrow(
      /no native tool format/,
    )
  })
})
