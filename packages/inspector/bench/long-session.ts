// A long session written the way the loop writes one: a JSONL session file and its JSONL trace
// (run-start, then per step budget, composition, cache, request, reply, saved, tool, saved),
// without running the loop 2,000 times.
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { sessionHeader } from '@contextkit/core/store'

function traceLine(seq: number, stage: string, data: Record<string, unknown>): string {
  return JSON.stringify({
    ts: new Date(Date.UTC(2026, 0, 1, 0, 0, seq)).toISOString(),
    seq,
    stage,
    data,
  })
}

function composition(step: number) {
  const history = 20 + step * 90
  return {
    v: 1,
    step,
    phase: 'agent',
    model: 'claude-haiku-4-5',
    window: 200_000,
    counter: { id: 'estimate:claude-haiku-4-5:x1.1', kind: 'estimate' },
    parts: [
      { kind: 'system', id: 'identity', tokens: 38, digest: 'a1b2c3d4e5f6', cache: 'stable' },
      {
        kind: 'system',
        id: 'bootstrap:AGENTS.md',
        tokens: 65,
        digest: 'b1b2c3d4e5f6',
        cache: 'stable',
      },
      { kind: 'tools', id: 'tools', tokens: 301, digest: 'c1b2c3d4e5f6', count: 3 },
      { kind: 'history', id: 'history', tokens: history, count: step * 2 - 1 },
      ...(step > 1 ? [{ kind: 'tool-results', id: 'tool-results', tokens: 75, count: 1 }] : []),
    ],
    reply: 1024,
    total: 404 + history + (step > 1 ? 75 : 0),
    free: 200_000 - 1024 - (404 + history + (step > 1 ? 75 : 0)),
    messages: { count: step * 2 - 1, same: step === 1 ? null : step * 2 - 3 },
  }
}

/** Lines of the trace of one run of `steps` steps. */
function traceLines(steps: number): string[] {
  let seq = 0
  const out = [traceLine(seq++, 'agent:run-start', { runId: 'r1', model: 'claude-haiku-4-5' })]
  for (let step = 1; step <= steps; step++) {
    const usage = {
      input: 500 + step,
      output: 40,
      cacheRead: step * 80,
      cacheWrite: 90,
      cacheHitRate: 0.5,
    }
    out.push(
      traceLine(seq++, 'agent:budget', {
        step,
        phase: 'agent',
        budget: 190_000,
        tokens: 103,
        kept: ['identity'],
        omissions: [],
      }),
      traceLine(seq++, 'agent:composition', composition(step)),
      traceLine(seq++, 'agent:cache', {
        step,
        phase: 'agent',
        mode: 'auto',
        breakpoints: [{ at: 'system', reason: 'stable-system' }],
        dropped: [],
        applied: 2,
      }),
      traceLine(seq++, 'agent:request', { step, phase: 'agent', messages: step * 2 - 1 }),
      traceLine(seq++, 'agent:reply', {
        step,
        stopReason: 'tool_use',
        blocks: ['text', 'tool_call'],
        toolCalls: ['read_file'],
        usage,
      }),
      traceLine(seq++, 'agent:saved', { sessionId: 'long', appended: 1, roles: ['assistant'] }),
      traceLine(seq++, 'agent:tool', {
        step,
        id: `call_${step}`,
        tool: 'read_file',
        input: { path: `src/file-${step}.ts` },
        isError: false,
        chars: 300,
        durationMs: 3,
      }),
      traceLine(seq++, 'agent:saved', { sessionId: 'long', appended: 1, roles: ['user'] }),
    )
  }
  out.push(traceLine(seq++, 'agent:stop', { stopReason: 'max_steps', steps }))
  return out
}

/** Lines of the session: header, the user's message, then a reply and a tool result per step. */
function sessionLines(id: string, steps: number): string[] {
  const ts = '2026-01-01T00:00:00.000Z'
  const out = [
    JSON.stringify(sessionHeader(id, new Date(ts))),
    JSON.stringify({
      type: 'message',
      id: 'u0',
      parentId: null,
      ts,
      message: { role: 'user', content: [{ type: 'text', text: 'Read every file.' }] },
    }),
  ]
  for (let step = 1; step <= steps; step++) {
    const usage = { input: 500 + step, output: 40, cacheRead: step * 80, cacheWrite: 90 }
    out.push(
      JSON.stringify({
        type: 'message',
        id: `a${step}`,
        parentId: step === 1 ? 'u0' : `r${step - 1}`,
        ts,
        message: {
          role: 'assistant',
          content: [
            { type: 'text', text: `Reading file ${step} next.` },
            {
              type: 'tool_call',
              id: `call_${step}`,
              name: 'read_file',
              input: { path: `src/file-${step}.ts` },
            },
          ],
          stopReason: 'tool_use',
          usage,
        },
      }),
      JSON.stringify({
        type: 'message',
        id: `r${step}`,
        parentId: `a${step}`,
        ts,
        message: {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              toolCallId: `call_${step}`,
              content: [{ type: 'text', text: `export const value${step} = ${step}\n`.repeat(8) }],
              isError: false,
            },
          ],
        },
      }),
    )
  }
  return out
}

/** Write session `id` of `steps` steps to `<dir>/sessions/<id>.jsonl` and `<dir>/traces/<id>.jsonl`. */
export async function writeLongSession(dir: string, id: string, steps: number): Promise<void> {
  await mkdir(join(dir, 'sessions'), { recursive: true })
  await mkdir(join(dir, 'traces'), { recursive: true })
  await writeFile(join(dir, 'sessions', `${id}.jsonl`), `${sessionLines(id, steps).join('\n')}\n`)
  await writeFile(join(dir, 'traces', `${id}.jsonl`), `${traceLines(steps).join('\n')}\n`)
}
