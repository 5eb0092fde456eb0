// End to end: prefill's `steps` option through the loop, the real SDK and testkit, with a tool
// call in between, so the second step is a tool-result continuation.
import { readFile, writeFile } from 'node:fs/promises'
import { memoryTrace, textMessage } from '@contextkit/core'
import { NativeFormatter } from '@contextkit/formatters'
import { PREFILL_TRACE_STAGES, prefill } from '@contextkit/prefill/node'
import { jsonlSessionStore } from '@contextkit/store-files'
import type { ScriptRequest } from '@contextkit/testkit'
import { describe, expect, test } from 'vitest'
import * as z from 'zod'
import { tempDir } from '../../../../test-utils/temp-dir.js'
import { runAgent } from '../run/run-agent.js'
import { emulated, onCleanup, wireText } from '../test-support.js'
import { defineTool } from '../tools/define-tool.js'

const PREFILL = 'Thinking it over:'

const lookup = defineTool({
  name: 'lookup',
  description: 'Look a sum up',
  input: z.object({ q: z.string() }),
  execute: () => 'four',
})

/** A run of two steps (a tool call, then the answer) with `steps` as given. */
async function twoSteps(steps: 'first' | 'every' | undefined) {
  const { dir, cleanup } = await tempDir('prefill-steps-')
  onCleanup(cleanup)
  await writeFile(`${dir}/PREFILL.md`, `${PREFILL}\n`)
  const seen: Array<string | undefined> = []
  const { bodies, provider } = await emulated([
    (req: ScriptRequest) => {
      seen.push(req.prefill)
      return { text: `${PREFILL} let me look.`, toolUse: { name: 'lookup', input: { q: '2+2' } } }
    },
    (req: ScriptRequest) => {
      seen.push(req.prefill)
      return req.prefill === undefined ? 'It is four.' : `${PREFILL} It is four.`
    },
  ])
  const trace = memoryTrace()
  const result = await runAgent({
    provider,
    model: 'claude-haiku-4-5',
    formatter: new NativeFormatter(),
    workspace: dir,
    tools: [lookup],
    middleware: [prefill(steps === undefined ? {} : { steps })],
    messages: [textMessage('user', 'What is 2+2?')],
    session: { store: jsonlSessionStore(`${dir}/sessions`), id: 'chat' },
    trace,
  }).result
  const file = await readFile(`${dir}/sessions/chat.jsonl`, 'utf8')
  return { result, seen, bodies: bodies(), trace, file }
}

describe("prefill's steps option against the emulator", () => {
  test("steps 'every': the tool-result continuation opens with the prefill too, and both replies are stripped", async () => {
    const { result, seen, bodies, trace, file } = await twoSteps('every')
    expect(result.error).toBeUndefined()
    expect(seen.map((p) => p?.trim())).toEqual([PREFILL, PREFILL])
    // the second request: ..., the tool result, then the model's own turn opened with the prefill
    const second = bodies[1]?.messages ?? []
    expect(second.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant'])
    expect(wireText(second.at(-1)).trim()).toBe(PREFILL)
    expect(result.text).toBe('It is four.')
    const injected = trace.byStage(PREFILL_TRACE_STAGES.injected)
    expect(injected.map((e) => e.data.step)).toEqual([1, 2])
    // the injected event shows the messages as sent, the prefill last
    const sent = injected[1]?.data.messages as Array<{ role: string; content: unknown[] }>
    expect(sent.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant'])
    expect(sent.at(-1)?.content).toEqual([{ type: 'text', text: PREFILL }])
    const stripped = trace.byStage(PREFILL_TRACE_STAGES.stripped)
    expect(stripped.map((e) => [e.data.step, e.data.match])).toEqual([
      [1, 'exact'],
      [2, 'exact'],
    ])
    expect(file).not.toContain(PREFILL)
    expect(file).toContain('let me look.')
  })

  for (const steps of ['first', undefined] as const) {
    test(`steps ${steps ?? 'default'}: only the first call opens with the prefill`, async () => {
      const { result, seen, bodies, trace, file } = await twoSteps(steps)
      expect(result.error).toBeUndefined()
      expect(seen.map((p) => p?.trim())).toEqual([PREFILL, undefined])
      expect(bodies[1]?.messages.at(-1)?.role).toBe('user')
      expect(trace.byStage(PREFILL_TRACE_STAGES.injected).map((e) => e.data.step)).toEqual([1])
      expect(trace.byStage(PREFILL_TRACE_STAGES.stripped).map((e) => e.data.step)).toEqual([1])
      expect(result.text).toBe('It is four.')
      expect(file).not.toContain(PREFILL)
    })
  }
})
