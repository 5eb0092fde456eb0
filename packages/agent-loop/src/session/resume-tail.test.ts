import { appendFile } from 'node:fs/promises'
import { type Message, type SessionEntry, type SessionStore, textMessage } from '@contextkit/core'
import { sessionHeader } from '@contextkit/core/store'
import { jsonlSessionStore, SESSION_WARNING_CODES } from '@contextkit/store-files'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { z } from 'zod'
import { tempDir } from '../../../../test-utils/temp-dir.js'
import { runAgent } from '../run/run-agent.js'
import { scriptedProvider } from '../testing/scripted-provider.js'
import { defineTool } from '../tools/define-tool.js'
import { applyCompaction } from './apply-compaction.js'
import { lastEntryId } from './entries.js'
import { runStateOf } from './run-state.js'

let work: Awaited<ReturnType<typeof tempDir>>
beforeAll(async () => {
  work = await tempDir('session-tail')
})
afterAll(() => work.cleanup())

const ts = new Date(0).toISOString()
const call = (id: string) => ({
  type: 'tool_call' as const,
  id,
  name: 'deploy',
  input: { env: 'prod' },
})
const msg = (id: string, message: Message): SessionEntry => ({
  type: 'message',
  id,
  parentId: null,
  ts,
  message,
})

/** `count` chatty entries: user turns and plain replies, about 600 bytes each. */
function chatter(count: number, from = 0): SessionEntry[] {
  return Array.from({ length: count }, (_, i) => {
    const n = from + i
    return msg(
      `m${n}`,
      n % 2 === 0
        ? textMessage('user', `turn ${n} ${'é🙂'.repeat(150)}`)
        : textMessage('assistant', `reply ${n} ${'x'.repeat(300)}`),
    )
  })
}

/** What a resume derives from a load, for comparing the tail with the full load. */
function resumeView(entries: readonly SessionEntry[]) {
  return {
    applied: applyCompaction(entries),
    state: runStateOf(entries),
    last: lastEntryId(entries),
  }
}

describe('jsonlSessionStore.loadTail', () => {
  test('reads only the tail of a long compacted session and resumes like the full load', async () => {
    const store = jsonlSessionStore(work.dir, { fsync: false })
    await store.append('long', [sessionHeader('long', new Date(0)), ...chatter(5_000)])
    await store.append('long', [
      {
        type: 'compaction',
        id: 'c1',
        parentId: 'm4999',
        ts,
        summary: 'Earlier: setup.',
        firstKeptId: 'm4990',
      },
      ...chatter(6, 5_000),
    ])
    const full = await store.load('long')
    const tail = await store.loadTail('long')
    expect(full.entries).toHaveLength(5_008)
    // the header, m4990…m4999, the compaction, m5000…m5005
    expect(tail.entries.map((e) => (e.type === 'session' ? 'header' : e.id))).toEqual([
      'header',
      ...Array.from({ length: 10 }, (_, i) => `m${4990 + i}`),
      'c1',
      ...Array.from({ length: 6 }, (_, i) => `m${5000 + i}`),
    ])
    expect(resumeView(tail.entries)).toEqual(resumeView(full.entries))
    expect(tail.warnings).toEqual([])
  })

  test('reaches back past the compaction to the last reply, its unanswered calls and approvals', async () => {
    const store = jsonlSessionStore(work.dir, { fsync: false })
    const reply: Message = {
      role: 'assistant',
      content: [{ type: 'text', text: 'Deploying.' }, call('k1'), call('k2')],
    }
    await store.append('approvals', [
      sessionHeader('approvals', new Date(0)),
      ...chatter(500),
      msg('r', reply),
      {
        type: 'approval',
        id: 'a1',
        parentId: 'r',
        ts,
        toolCallId: 'k1',
        tool: 'deploy',
        status: 'requested',
        input: { env: 'prod' },
      },
      {
        type: 'approval',
        id: 'a2',
        parentId: 'a1',
        ts,
        toolCallId: 'k2',
        tool: 'deploy',
        status: 'denied',
        reason: 'not now',
      },
      msg('u', textMessage('user', 'status?')),
      // kept from the last user message on: after the reply whose calls are still open
      { type: 'compaction', id: 'c', parentId: 'u', ts, summary: 'So far.', firstKeptId: 'u' },
    ])
    const tail = await store.loadTail('approvals')
    expect(tail.entries.map((e) => (e.type === 'session' ? 'header' : e.id))).toEqual([
      'header',
      'r',
      'a1',
      'a2',
      'u',
      'c',
    ])
    expect(runStateOf(tail.entries)).toEqual({
      kind: 'tools',
      unanswered: [
        { call: call('k1'), approval: { status: 'requested' } },
        { call: call('k2'), approval: { status: 'denied', reason: 'not now' } },
      ],
    })
    expect(resumeView(tail.entries)).toEqual(resumeView((await store.load('approvals')).entries))
  })

  test('a resumed run on a compacted session sends the summary and runs the approved call once', async () => {
    const dir = `${work.dir}/resume`
    const store: SessionStore = jsonlSessionStore(dir, { fsync: false })
    let loadedFull = 0
    const counting: SessionStore = {
      ...store,
      load: (id) => {
        loadedFull++
        return store.load(id)
      },
      loadTail: (id) => (store.loadTail as NonNullable<SessionStore['loadTail']>)(id),
    }
    await store.append('run', [
      sessionHeader('run', new Date(0)),
      ...chatter(2_000),
      {
        type: 'compaction',
        id: 'c',
        parentId: 'm1999',
        ts,
        summary: 'The story so far.',
        firstKeptId: 'm1998',
      },
      msg('r', { role: 'assistant', content: [call('k1')] }),
      {
        type: 'approval',
        id: 'a1',
        parentId: 'r',
        ts,
        toolCallId: 'k1',
        tool: 'deploy',
        status: 'requested',
      },
    ])
    const ran: string[] = []
    const deploy = defineTool({
      name: 'deploy',
      description: 'Deploy',
      input: z.object({ env: z.string() }),
      approval: 'ask',
      execute: (_input, { toolCallId }) => {
        ran.push(toolCallId)
        return 'deployed'
      },
    })
    const provider = scriptedProvider(['Done.'])
    const result = await runAgent({
      provider,
      model: 'claude-haiku-4-5',
      tools: [deploy],
      session: { store: counting, id: 'run' },
      messages: [],
      resume: { approvals: { k1: { approve: true } } },
    }).result
    expect(result.stopReason).toBe('end_turn')
    expect(ran).toEqual(['k1'])
    expect(loadedFull).toBe(0)
    const sent = JSON.stringify(provider.requests[0]?.messages)
    expect(sent).toContain('The story so far.')
    expect(sent).toContain('reply 1999')
    expect(sent).not.toContain('turn 1996 ')
  })

  test('a torn last line, CRLF lines and a compaction naming an unknown id behave as in the full load', async () => {
    const store = jsonlSessionStore(work.dir, { fsync: false })
    await store.append('odd', [sessionHeader('odd', new Date(0)), ...chatter(300)])
    const file = store.pathOf('odd')
    const crlf = (e: SessionEntry) => `${JSON.stringify(e)}\r\n`
    await appendFile(
      file,
      crlf({
        type: 'compaction',
        id: 'good',
        parentId: null,
        ts,
        summary: 'ok',
        firstKeptId: 'm290',
      }) +
        crlf(msg('m300', textMessage('user', 'after'))) +
        crlf({
          type: 'compaction',
          id: 'bad',
          parentId: null,
          ts,
          summary: 'lost',
          firstKeptId: 'nowhere',
        }) +
        '{"type":"message","id":"torn","par',
    )
    const full = await store.load('odd')
    const tail = await store.loadTail('odd')
    expect(resumeView(tail.entries)).toEqual(resumeView(full.entries))
    expect(resumeView(tail.entries).applied.warnings).toHaveLength(1)
    expect(tail.warnings).toEqual(full.warnings)
    expect(tail.warnings.map((w) => [w.code, w.line])).toEqual([
      [SESSION_WARNING_CODES.tornLine, 305],
    ])
    // whether the newest compaction's id is held before it can only be known at the file's
    // start: the whole file was read, as the full load does
    expect(tail.entries).toEqual(full.entries)
  })
})
