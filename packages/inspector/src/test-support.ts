// Test helpers for this package's own tests (not exported): real runs of the agent loop against
// testkit's emulator, written to a JSONL session store and JSONL traces in a temp directory.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Anthropic from '@anthropic-ai/sdk'
import { type ApprovalAnswer, defineTool, runAgent } from '@contextkit/agent-loop'
import { anthropicProvider } from '@contextkit/agent-loop/anthropic'
import { textMessage } from '@contextkit/core'
import { jsonlTrace } from '@contextkit/core/node'
import { type JsonlSessionStore, jsonlSessionStore } from '@contextkit/store-files'
import { type Script, startAnthropicEmulator } from '@contextkit/testkit'
import { afterEach } from 'vitest'
import * as z from 'zod'

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

/** Register a cleanup for the end of the current test. */
export function onCleanup(fn: () => Promise<void> | void): void {
  cleanups.push(fn)
}

/** A temp folder with `sessions/` (a JSONL store) and `traces/` beside it. */
export interface Workspace {
  dir: string
  sessions: JsonlSessionStore
  traces: string
}

/** A fresh workspace, removed after the test. */
export async function workspace(): Promise<Workspace> {
  const dir = await mkdtemp(join(tmpdir(), 'ck-inspector-'))
  onCleanup(() => rm(dir, { recursive: true, force: true }))
  return {
    dir,
    sessions: jsonlSessionStore(join(dir, 'sessions'), { fsync: false }),
    traces: join(dir, 'traces'),
  }
}

const echo = defineTool({
  name: 'echo',
  description: 'Say the text back',
  input: z.object({ text: z.string() }),
  execute: ({ text }) => `echo: ${text}`,
})

const write = defineTool({
  name: 'write_note',
  description: 'Write a note (asks a person first)',
  input: z.object({ text: z.string() }),
  approval: 'ask',
  execute: ({ text }) => `written: ${text}`,
})

/** One run of the loop on session `id` of `ws`, its trace appended to `<traces>/<id>.jsonl`. */
export async function run(
  ws: Workspace,
  id: string,
  script: Script,
  input: { user?: string; approvals?: Record<string, ApprovalAnswer> } = {},
) {
  const emulator = await startAnthropicEmulator({ script })
  onCleanup(() => emulator.close())
  const client = new Anthropic({ apiKey: 'test', baseURL: emulator.url, maxRetries: 0 })
  const result = await runAgent({
    provider: anthropicProvider({ client }),
    model: 'claude-haiku-4-5',
    system: [{ id: 'identity', text: 'You are a careful agent.', priority: 10, cache: 'stable' }],
    messages: input.user === undefined ? [] : [textMessage('user', input.user)],
    tools: [echo, write],
    session: { store: ws.sessions, id },
    trace: jsonlTrace(join(ws.traces, `${id}.jsonl`)),
    maxTokens: 400,
    ...(input.approvals ? { resume: { approvals: input.approvals } } : {}),
  }).result
  return { result, requests: emulator.requests }
}

/** A script: `echo` once, then `write_note` (which pauses for approval), then a last word. */
export const ECHO_THEN_WRITE: Script = [
  { text: 'Echoing first.', toolUse: { name: 'echo', input: { text: 'hi' } } },
  { text: 'Now the note.', toolUse: { name: 'write_note', input: { text: 'remember' } } },
  { text: 'All done.' },
]
