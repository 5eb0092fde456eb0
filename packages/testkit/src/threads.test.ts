import Anthropic from '@anthropic-ai/sdk'
import { betaTool } from '@anthropic-ai/sdk/helpers/beta/json-schema'
import fc from 'fast-check'
import { afterEach, describe, expect, test } from 'vitest'
import {
  type AnthropicEmulator,
  type ScriptRequest,
  startAnthropicEmulator,
  THREADS_BETA_PREFIX,
} from './index.js'
import { ThreadStore } from './threads.js'

const BETA = 'message-threads-2026-08-12'
let emu: AnthropicEmulator | undefined
afterEach(async () => {
  await emu?.close()
  emu = undefined
})

async function start(script: Parameters<typeof startAnthropicEmulator>[0]['script']) {
  emu = await startAnthropicEmulator({ script })
  return { emu, client: new Anthropic({ apiKey: 'test', baseURL: emu.url, maxRetries: 0 }) }
}

type Body = Record<string, unknown> & { messages: unknown[]; thread?: Record<string, unknown> }

describe('the SDK tool runner (default settings: server-side threads)', () => {
  test('runs two tool rounds; turns 2 and 3 continue the thread with only the tool result', async () => {
    const seen: ScriptRequest[] = []
    const { emu, client } = await start((req) => {
      seen.push(req)
      if (req.index === 0) return { toolUse: { name: 'add', input: { a: 1, b: 2 } } }
      if (req.index === 1) return { toolUse: { name: 'add', input: { a: 3, b: 4 } } }
      const results = req.messages
        .flatMap((m) => m.content)
        .filter((b) => b.type === 'tool_result')
        .map((b) => b.content)
      return `Sums: ${results.join(', ')}`
    })
    const add = betaTool({
      name: 'add',
      description: 'Adds two numbers',
      inputSchema: {
        type: 'object',
        properties: { a: { type: 'number' }, b: { type: 'number' } },
        required: ['a', 'b'],
      },
      run: ({ a, b }) => String(a + b),
    })
    const runner = client.beta.messages.toolRunner({
      model: 'claude-haiku-4-5',
      max_tokens: 500,
      system: 'You add numbers.',
      tools: [add],
      messages: [{ role: 'user', content: 'Add 1+2, then 3+4.' }],
    })
    const replies: Anthropic.Beta.BetaMessage[] = []
    for await (const message of runner) replies.push(message)

    expect(replies.map((r) => r.stop_reason)).toEqual(['tool_use', 'tool_use', 'end_turn'])
    expect(replies[2]?.content).toEqual([{ type: 'text', text: 'Sums: 3, 7' }])
    expect(emu.failures).toEqual([])

    const bodies = emu.requests.map((r) => r.body as Body)
    expect(emu.requests.map((r) => r.status)).toEqual([200, 200, 200])
    for (const r of emu.requests) expect(r.headers['anthropic-beta']).toContain(THREADS_BETA_PREFIX)
    expect(bodies[0]).toMatchObject({ thread: { type: 'create' }, system: 'You add numbers.' })
    for (const i of [1, 2]) {
      expect(bodies[i]?.thread).toEqual({
        type: 'continue',
        previous_message_id: replies[i - 1]?.id,
      })
      expect(bodies[i]).not.toHaveProperty('system')
      expect(bodies[i]).not.toHaveProperty('tools')
      expect(bodies[i]?.messages).toEqual([
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: (replies[i - 1]!.content[0] as Anthropic.Beta.BetaToolUseBlock).id,
              content: i === 1 ? '3' : '7',
            },
          ],
        },
      ])
    }
    // the script saw the whole conversation each time, with the thread's system and tools
    expect(seen.map((r) => r.messages.length)).toEqual([1, 3, 5])
    expect(seen.map((r) => r.system)).toEqual(Array(3).fill('You add numbers.'))
    expect(seen.map((r) => r.toolNames)).toEqual([['add'], ['add'], ['add']])
  })
})

describe('client.beta.messages.thread()', () => {
  test('send and stream continue one conversation', async () => {
    const { emu, client } = await start(
      (req) => `turn ${req.index + 1}, heard: ${req.messages.map((m) => m.role[0]).join('')}`,
    )
    const thread = client.beta.messages.thread({
      model: 'claude-fable-5-1',
      max_tokens: 1000,
      system: 'Be brief.',
    })
    const first = await thread.send({ role: 'user', content: 'Hello' })
    expect(first.content).toEqual([{ type: 'text', text: 'turn 1, heard: u' }])
    expect(thread.previousMessageId).toBe(first.id)
    const second = await thread.stream({ role: 'user', content: 'Again' }).finalMessage()
    expect(second.content).toEqual([{ type: 'text', text: 'turn 2, heard: uau' }])
    const third = await thread.send({ role: 'user', content: 'Once more' })
    expect(third.content).toEqual([{ type: 'text', text: 'turn 3, heard: uauau' }])
    const bodies = emu.requests.map((r) => r.body as Body)
    expect(bodies.map((b) => b.thread?.type)).toEqual(['create', 'continue', 'continue'])
    expect(bodies.map((b) => b.messages.length)).toEqual([1, 1, 1])
    expect(thread.messages).toHaveLength(6)
  })
})

describe('thread errors, shaped like the API', () => {
  const headers = (beta = true) => ({
    'x-api-key': 'k',
    'anthropic-version': '2023-06-01',
    'content-type': 'application/json',
    ...(beta ? { 'anthropic-beta': BETA } : {}),
  })
  async function post(body: Record<string, unknown>, beta = true) {
    const res = await fetch(`${emu!.url}/v1/messages`, {
      method: 'POST',
      headers: headers(beta),
      body: JSON.stringify({ model: 'claude-haiku-4-5', max_tokens: 50, ...body }),
    })
    const json = (await res.json()) as {
      id?: string
      error?: { type: string; message: string; details?: { error_code: string } }
    }
    return { status: res.status, ...json }
  }
  const hi = [{ role: 'user', content: 'hi' }]

  test('a thread without the threads beta is an unknown field', async () => {
    await start(() => 'ok')
    const r = await post({ messages: hi, thread: { type: 'create' } }, false)
    expect(r).toMatchObject({
      status: 400,
      error: { type: 'invalid_request_error', message: 'thread: Extra inputs are not permitted' },
    })
    // thread: null is no thread at all
    expect((await post({ messages: hi, thread: null }, false)).status).toBe(200)
  })

  test('unknown, already continued, malformed and mismatched continues', async () => {
    const { client } = await start(() => 'ok')
    const created = await post({ messages: hi, system: 'S', thread: { type: 'create' } })
    const id = created.id!
    const cont = (extra: Record<string, unknown> = {}) =>
      post({
        messages: [{ role: 'user', content: 'more' }],
        ...extra,
        thread: { type: 'continue', previous_message_id: id },
      })

    const unknown = await post({
      messages: hi,
      thread: { type: 'continue', previous_message_id: 'msg_nope' },
    })
    expect(unknown).toMatchObject({
      status: 404,
      error: { type: 'not_found_error', details: { error_code: 'thread_not_found' } },
    })
    const viaSdk = await client.beta.messages
      .create({
        model: 'claude-haiku-4-5',
        max_tokens: 50,
        messages: [{ role: 'user', content: 'x' }],
        thread: { type: 'continue', previous_message_id: 'msg_nope' },
        betas: [BETA],
      })
      .catch((e: unknown) => e)
    expect(viaSdk).toBeInstanceOf(Anthropic.NotFoundError)
    expect((viaSdk as InstanceType<typeof Anthropic.APIError>).errorCode).toBe('thread_not_found')

    expect(await cont({ system: 'other' })).toMatchObject({
      status: 400,
      error: { message: expect.stringMatching(/^system: cannot be sent when continuing a thread/) },
    })
    expect(await cont({ model: 'claude-opus-4-5' })).toMatchObject({
      status: 400,
      error: { details: { error_code: 'thread_fingerprint_mismatch' } },
    })
    expect((await post({ messages: hi, thread: { type: 'fork' } })).error?.message).toBe(
      "thread: Input tag 'fork' found using 'type' does not match any of the expected tags: 'continue', 'create'",
    )
    expect((await post({ messages: hi, thread: { type: 'continue' } })).error?.message).toBe(
      'thread.continue.previous_message_id: Field required',
    )
    // a refused continue leaves the reply open; the first good one uses it up
    expect((await cont()).status).toBe(200)
    expect(await cont()).toMatchObject({
      status: 400,
      error: { type: 'invalid_request_error', details: { error_code: 'thread_already_continued' } },
    })
  })

  test('a continue is validated as the whole conversation; a faulted reply is not kept', async () => {
    await start([
      { toolUse: { name: 'f', input: {} } },
      { fault: { kind: 'http', status: 500, shouldRetry: false } },
      'after the fault',
    ])
    const tools = [{ name: 'f', input_schema: { type: 'object' } }]
    const first = await post({ messages: hi, tools, thread: { type: 'create' } })
    const toolUseId = (first as unknown as { content: { id: string }[] }).content[0]!.id
    const answer = [
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUseId, content: 'r' }] },
    ]
    // a plain text reply would leave the stored tool_use unanswered: refused like the API
    const orphan = await post({
      messages: hi,
      thread: { type: 'continue', previous_message_id: first.id },
    })
    expect(orphan.status).toBe(400)
    expect(orphan.error?.message).toContain(toolUseId)
    const faulted = await post({
      messages: answer,
      thread: { type: 'continue', previous_message_id: first.id },
    })
    expect(faulted.status).toBe(500)
    // neither refusal nor fault used up the stored reply
    const ok = await post({
      messages: answer,
      thread: { type: 'continue', previous_message_id: first.id },
    })
    expect(ok).toMatchObject({ status: 200 })
  })
})

describe('ThreadStore', () => {
  const headers = { 'anthropic-beta': `other-beta, ${BETA}` }

  test('property: a chain of continues always expands to the whole conversation', () => {
    const turnArb = fc.array(fc.string({ minLength: 1, maxLength: 8 }), {
      minLength: 1,
      maxLength: 3,
    })
    fc.assert(
      fc.property(fc.array(turnArb, { minLength: 1, maxLength: 8 }), (turns) => {
        const store = new ThreadStore()
        const full: unknown[] = []
        let previous: string | undefined
        turns.forEach((texts, i) => {
          const sent = texts.map((t) => ({ role: 'user', content: t }))
          const thread =
            previous === undefined
              ? { type: 'create' }
              : { type: 'continue', previous_message_id: previous }
          // system only on the creating request; a continue gets it back from the thread
          const body = {
            model: 'm',
            ...(previous === undefined && { system: 'S' }),
            messages: sent,
            thread,
          }
          const begun = store.begin(body, headers)
          if (!begun.ok) throw new Error(begun.problem.message)
          full.push(...sent)
          expect(begun.body).toEqual({ model: 'm', system: 'S', messages: full })
          const reply = {
            id: `msg_${i}`,
            role: 'assistant' as const,
            content: [{ type: 'text', text: `r${i}` }],
          }
          store.commit(begun.turn!, begun.body, reply)
          full.push({ role: 'assistant', content: reply.content })
          previous = reply.id
        })
        expect(store.size).toBe(turns.length)
      }),
    )
  })

  test('an aborted continue frees the reply; a continue in flight blocks another', () => {
    const store = new ThreadStore()
    const created = store.begin({ model: 'm', messages: [], thread: { type: 'create' } }, headers)
    if (!created.ok) throw new Error('create refused')
    store.commit(created.turn!, created.body, { id: 'msg_a', role: 'assistant', content: [] })
    const cont = {
      model: 'm',
      messages: [],
      thread: { type: 'continue', previous_message_id: 'msg_a' },
    }
    const first = store.begin(cont, headers)
    expect(first.ok).toBe(true)
    const second = store.begin(cont, headers)
    expect(second).toMatchObject({
      ok: false,
      problem: { status: 400, details: { error_code: 'thread_continue_in_flight' } },
    })
    if (first.ok) store.abort(first.turn!)
    expect(store.begin(cont, headers).ok).toBe(true)
  })
})
