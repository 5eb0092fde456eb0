/**
 * A worker process of the session-lease tests (session-lease-processes.test.ts): one `runAgent`
 * of {@link LEASE_STEPS} steps on a JSONL session, through the real SDK and testkit's emulator.
 * argv[2]: `{ dir, sessionId, baseURL, tag, mode: 'run' | 'resume', sessionWaitMs?, leaseTtlMs? }`.
 * Prints `ready`, `refused <holder>` the first time the session's lease is refused, then its
 * result as one JSON line.
 */

import Anthropic from '@anthropic-ai/sdk'
import { type SessionLeaseRequest, textMessage } from '@contextkit/core'
import { jsonlSessionStore } from '@contextkit/store-files'
import * as z from 'zod'
import { anthropicProvider } from '../anthropic/anthropic-provider.js'
import { runAgent } from '../run/run-agent.js'
import { defineTool } from '../tools/define-tool.js'

const args = JSON.parse(process.argv[2] ?? '{}') as {
  dir: string
  sessionId: string
  baseURL: string
  tag: string
  mode: 'run' | 'resume'
  sessionWaitMs?: number
  leaseTtlMs?: number
}
const base = jsonlSessionStore(args.dir, {
  ...(args.leaseTtlMs === undefined ? {} : { leaseTtlMs: args.leaseTtlMs }),
})
let told = false
const store = {
  ...base,
  async acquireLease(id: string, request: SessionLeaseRequest) {
    const attempt = await base.acquireLease(id, request)
    if (!attempt.acquired && !told) {
      told = true
      process.stdout.write(`refused ${JSON.stringify(attempt.holder)}\n`)
    }
    return attempt
  },
}
const step = defineTool({
  name: 'step',
  description: 'Do one step',
  input: z.object({ n: z.number() }),
  execute: ({ n }) => `step ${n} done`,
})
const client = new Anthropic({ apiKey: 'test', baseURL: args.baseURL, maxRetries: 0 })
process.stdout.write('ready\n')
const result = await runAgent({
  provider: anthropicProvider({ client, retryDelayMs: 1 }),
  model: 'claude-haiku-4-5',
  tools: [step],
  session: { store, id: args.sessionId },
  runId: `run_${args.tag}`,
  messages: args.mode === 'run' ? [textMessage('user', `${args.tag}: go`)] : [],
  ...(args.mode === 'resume' ? { resume: true as const } : {}),
  ...(args.sessionWaitMs === undefined ? {} : { sessionWaitMs: args.sessionWaitMs }),
}).result
process.stdout.write(
  `${JSON.stringify({
    stopReason: result.stopReason,
    steps: result.steps,
    ...(result.error ? { code: result.error.code, error: result.error.message } : {}),
  })}\n`,
)
