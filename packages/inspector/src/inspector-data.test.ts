import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseTraceEvent } from '@contextkit/core/store'
import { expect, test } from 'vitest'
import { compositionView } from './composition.js'
import { InspectorData } from './inspector-data.js'
import { sessionSource } from './session-source.js'
import { ECHO_THEN_WRITE, run, workspace } from './test-support.js'
import { jsonlTraceDirectory } from './trace-reader.js'

function traceCompositions(file: string) {
  return readFileSync(file, 'utf8')
    .split('\n')
    .map(parseTraceEvent)
    .filter((e) => e?.stage === 'agent:composition')
    .map((e) => compositionView(e?.data))
}

test('a paused run, then its resume: steps, compositions, calls and decisions as recorded', async () => {
  const ws = await workspace()
  const first = await run(ws, 'chat-1', ECHO_THEN_WRITE, { user: 'go' })
  expect(first.result.stopReason).toBe('awaiting_approval')
  const data = new InspectorData(sessionSource(ws.sessions), jsonlTraceDirectory(ws.traces))
  const [item] = await data.list()
  expect(item).toMatchObject({ id: 'chat-1', state: 'awaiting_approval', steps: 2, traced: true })
  const summary = await data.summary('chat-1')
  expect(summary.pending.map((p) => p.tool)).toEqual(['write_note'])
  const callId = summary.pending[0]?.toolCallId ?? ''

  await run(ws, 'chat-1', [{ text: 'All done.' }], { approvals: { [callId]: { approve: true } } })
  const after = await data.summary('chat-1')
  expect(after).toMatchObject({ state: 'ended', steps: 3, stopReason: 'end_turn', pending: [] })
  const page = await data.steps('chat-1', 1, 10)
  expect(page.total).toBe(3)
  expect(page.steps.map((s) => [s.index, s.run, s.step, s.stopReason])).toEqual([
    [1, 1, 1, 'tool_use'],
    [2, 1, 2, 'tool_use'],
    [3, 2, 1, 'end_turn'],
  ])
  // each step's composition is the trace's record, number for number
  const recorded = traceCompositions(join(ws.traces, 'chat-1.jsonl'))
  expect(page.steps.map((s) => s.composition)).toEqual(recorded)
  const [one, two, three] = page.steps
  expect(one?.toolCalls).toMatchObject([{ name: 'echo', result: 'echo: hi', isError: false }])
  expect(one?.toolCalls[0]?.durationMs).toEqual(expect.any(Number))
  expect(two?.toolCalls).toMatchObject([
    { name: 'write_note', approval: 'approved', result: 'written: remember' },
  ])
  // the approved call ran in the resumed run (its step 0): its time comes from there
  expect(two?.toolCalls[0]?.durationMs).toEqual(expect.any(Number))
  expect(three?.text).toBe('All done.')
  expect(two?.diff).toMatchObject({
    previous: 1,
    sameMessages: 1,
    previousMessages: 1,
    firstChange: null,
  })
  expect(three?.diff).toMatchObject({ previous: 2, sameMessages: null })
})

test('a window of steps: only those asked for, the first with its difference', async () => {
  const ws = await workspace()
  await run(ws, 's', ECHO_THEN_WRITE, { user: 'go' })
  const data = new InspectorData(sessionSource(ws.sessions), jsonlTraceDirectory(ws.traces))
  const page = await data.steps('s', 2, 1)
  expect(page).toMatchObject({ total: 2, from: 2 })
  expect(page.steps.map((s) => s.index)).toEqual([2])
  expect(page.steps[0]?.diff?.previous).toBe(1)
  expect((await data.steps('s', 99, 5)).steps.map((s) => s.index)).toEqual([2])
})

test('without traces: the session alone gives the steps, replies, calls, approvals and usage', async () => {
  const ws = await workspace()
  await run(ws, 'plain', ECHO_THEN_WRITE, { user: 'go' })
  const data = new InspectorData(sessionSource(ws.sessions), undefined)
  const summary = await data.summary('plain')
  expect(summary).toMatchObject({ steps: 2, traced: false, state: 'awaiting_approval' })
  expect(summary.usage.output).toBeGreaterThan(0)
  const page = await data.steps('plain', 1, 10)
  expect(page.steps.map((s) => [s.index, s.run, s.composition, s.text])).toEqual([
    [1, null, null, 'Echoing first.'],
    [2, null, null, 'Now the note.'],
  ])
  expect(page.steps[1]?.toolCalls[0]).toMatchObject({ name: 'write_note', approval: 'requested' })
  expect(page.steps[0]?.usage?.output).toBeGreaterThan(0)
})

test('a store without files is read through load (any SessionStore)', async () => {
  const ws = await workspace()
  await run(ws, 'm', ECHO_THEN_WRITE, { user: 'go' })
  const { sessions } = ws
  const plain = {
    load: (id: string) => sessions.load(id),
    append: sessions.append,
    list: () => sessions.list(),
    delete: sessions.delete,
  }
  const data = new InspectorData(sessionSource(plain), jsonlTraceDirectory(ws.traces))
  const viaFiles = new InspectorData(sessionSource(sessions), jsonlTraceDirectory(ws.traces))
  expect(await data.steps('m', 1, 10)).toEqual(await viaFiles.steps('m', 1, 10))
  expect(await data.summary('m')).toEqual(await viaFiles.summary('m'))
})

test('reads of one session at the same time fold each event once', async () => {
  const ws = await workspace()
  await run(ws, 'c', ECHO_THEN_WRITE, { user: 'go' })
  const data = new InspectorData(sessionSource(ws.sessions), jsonlTraceDirectory(ws.traces))
  const all = await Promise.all([
    data.summary('c'),
    data.summary('c'),
    data.list(),
    data.summary('c'),
  ])
  for (const s of [all[0], all[1], all[3]]) expect(s).toMatchObject({ steps: 2, warnings: [] })
  expect((await data.steps('c', 1, 5)).steps.map((s) => [s.run, s.step])).toEqual([
    [1, 1],
    [1, 2],
  ])
})
