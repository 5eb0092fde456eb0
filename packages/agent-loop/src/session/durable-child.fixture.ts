/**
 * A child process for the durable-run crash tests: one `runAgent` call on a JSONL session, with
 * the real SDK pointed at the parent's emulator, until it ends or is killed.
 * argv: <sessions dir> <emulator url> <session id> <effects dir> <mode> [approvals JSON]
 * mode `run` sends the user's message; `resume` resumes; `approve` resumes with the approvals.
 * Tools: `lookup` (idempotent), `send` (not: each execution appends a line to a file named for
 * its call, before it sleeps, so a kill mid-tool leaves the side effect done and unreported),
 * `write` (approval: 'ask', same side-effect file).
 */
import { appendFileSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import Anthropic from '@anthropic-ai/sdk'
import { textMessage } from '@contextkit/core'
import { z } from 'zod'
import { anthropicProvider } from '../anthropic/anthropic-provider.js'
import { defineTool } from '../define-tool.js'
import { runAgent } from '../run-agent.js'
import { jsonlSessionStore } from './jsonl-store.js'

const [dir, url, id, effects, mode, approvals] = process.argv.slice(2)
if (!dir || !url || !id || !effects || !mode) throw new Error('usage: see the file header')

const effect = (name: string, callId: string): void =>
  appendFileSync(join(effects, `${name}-${callId}`), `${process.pid}\n`)

const tools = [
  defineTool({
    name: 'lookup',
    description: 'Look something up',
    input: z.object({ q: z.string() }),
    idempotent: true,
    execute: async ({ q }) => {
      await sleep(Math.random() * 10)
      return `found ${q}`
    },
  }),
  defineTool({
    name: 'send',
    description: 'Send a message',
    input: z.object({ to: z.string() }),
    execute: async ({ to }, { toolCallId }) => {
      effect('send', toolCallId)
      await sleep(Math.random() * 10)
      return `sent to ${to}`
    },
  }),
  defineTool({
    name: 'write',
    description: 'Write a file',
    input: z.object({ path: z.string() }),
    approval: 'ask',
    execute: async ({ path }, { toolCallId }) => {
      effect('write', toolCallId)
      await sleep(Math.random() * 5)
      return `wrote ${path}`
    },
  }),
]

const client = new Anthropic({ apiKey: 'test', baseURL: url, maxRetries: 0 })
process.stdout.write('ready\n')
const result = await runAgent({
  provider: anthropicProvider({ client, retryDelayMs: 1 }),
  model: 'claude-haiku-4-5',
  tools,
  session: { store: jsonlSessionStore(dir), id },
  messages: mode === 'run' ? [textMessage('user', 'Do the task.')] : [],
  ...(mode === 'run'
    ? {}
    : { resume: mode === 'approve' ? { approvals: JSON.parse(approvals ?? '{}') } : true }),
}).result
process.stdout.write(
  `${JSON.stringify({
    stopReason: result.stopReason,
    pending: result.pending ?? [],
    error: result.error?.message,
  })}\n`,
)
