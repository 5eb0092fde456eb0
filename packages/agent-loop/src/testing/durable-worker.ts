import { appendFileSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import {
  assertArray,
  assertObject,
  assertString,
  invalidArgument,
  type SessionStore,
  textMessage,
} from '@contextkit/core'
import * as z from 'zod'
import type { ApprovalAnswer } from '../run/option-checks.js'
import { runAgent } from '../run/run-agent.js'
import { defineTool } from '../tools/define-tool.js'

/** The user's message of the durable-run scenario. */
export const DURABLE_USER_MESSAGE = 'Do the task.'

/** The calls of the scenario's two tool steps, by id (the model is told to use these ids). */
export const DURABLE_CALLS = Object.freeze({
  lookup: 'toolu_look',
  send: 'toolu_send',
  write: 'toolu_write',
})

/**
 * The scripted model of the durable-run scenario, for testkit's emulator (`script`): the step is
 * read from the replies the request already holds, so a repeated call gets the same answer.
 * Step 1 calls `lookup` (idempotent) and `send` (not), step 2 calls `write` (needs approval),
 * step 3 answers.
 */
export function durableScript(request: { messages: ReadonlyArray<{ role: string }> }) {
  assertObject(request, 'durableScript', 'request')
  assertArray(request.messages, 'durableScript', 'request.messages')
  const replies = request.messages.filter((m) => m.role === 'assistant').length
  const transport = { chunkDelayMs: 1, writeSize: 8 }
  if (replies === 0) {
    return {
      text: 'Looking it up and telling Bob.',
      toolUse: [
        { id: DURABLE_CALLS.lookup, name: 'lookup', input: { q: 'x' } },
        { id: DURABLE_CALLS.send, name: 'send', input: { to: 'bob' } },
      ],
      transport,
    }
  }
  if (replies === 1) {
    return {
      text: 'Writing the file.',
      toolUse: { id: DURABLE_CALLS.write, name: 'write', input: { path: 'out.txt' } },
      transport,
    }
  }
  return { text: 'All done.', transport }
}

/** Where a worker of the crash matrix may stop to be killed (see {@link durableWorker}). */
export const DURABLE_PAUSES = Object.freeze(['start', 'reply', 'lookup', 'send', 'write'] as const)

/** One of {@link DURABLE_PAUSES}. */
export type DurablePause = (typeof DURABLE_PAUSES)[number]

/** Options of {@link durableWorker}. */
export interface DurableWorkerOptions {
  /** The store under test. */
  store: SessionStore
  /** The session the worker runs on. */
  sessionId: string
  /** The emulator's URL (the real `@anthropic-ai/sdk` is pointed at it). */
  baseURL: string
  /** `run` sends the user's message; `resume` resumes; `approve` resumes with `approvals`. */
  mode: 'run' | 'resume' | 'approve'
  /** The decisions, by tool call id (mode `approve`). */
  approvals?: Record<string, ApprovalAnswer>
  /** Where the side-effect files go: one line per execution, in `<tool>-<call id>`. */
  effectsDir: string
  /**
   * Where to stop, printing `paused <where>` and waiting forever, so that a kill lands there for
   * certain: in a tool (after its side effect, if it has one), `reply`: at the first text of the
   * model's reply, which is not saved yet, or `start`: before the run begins (nothing saved).
   */
  pauseAt?: DurablePause
}

/**
 * One worker of the durable-run crash matrix: a single `runAgent` call of the scenario on
 * `store`, meant to run in a child process that the test kills at random instants. Tools:
 * `lookup` (idempotent), `send` (not; its side effect is written before it sleeps, so a kill
 * mid-tool leaves it done and unreported), `write` (`approval: 'ask'`). Needs
 * `@anthropic-ai/sdk` (loaded on call).
 */
export async function durableWorker(options: DurableWorkerOptions) {
  const fn = 'durableWorker'
  assertObject(options, fn, 'options')
  assertObject(options.store, fn, 'options.store')
  for (const name of ['sessionId', 'baseURL', 'effectsDir'] as const) {
    assertString(options[name], fn, `options.${name}`)
  }
  if (!['run', 'resume', 'approve'].includes(options.mode)) {
    invalidArgument(fn, 'options.mode', "'run', 'resume' or 'approve'", options.mode)
  }
  const pauses: readonly unknown[] = DURABLE_PAUSES
  if (options.pauseAt !== undefined && !pauses.includes(options.pauseAt)) {
    invalidArgument(
      fn,
      'options.pauseAt',
      `one of ${pauses.join(', ')} or undefined`,
      options.pauseAt,
    )
  }
  const { default: Anthropic } = await import('@anthropic-ai/sdk')
  const { anthropicProvider } = await import('../anthropic/anthropic-provider.js')
  const effect = async (name: string, id?: string): Promise<void> => {
    if (id !== undefined)
      appendFileSync(join(options.effectsDir, `${name}-${id}`), `${process.pid}\n`)
    if (name === options.pauseAt) freeze(name)
  }
  const client = new Anthropic({ apiKey: 'test', baseURL: options.baseURL, maxRetries: 0 })
  if (options.pauseAt === 'start') freeze('start')
  const run = runAgent({
    provider: anthropicProvider({ client, retryDelayMs: 1 }),
    model: 'claude-haiku-4-5',
    tools: scenarioTools(effect),
    session: { store: options.store, id: options.sessionId },
    messages: options.mode === 'run' ? [textMessage('user', DURABLE_USER_MESSAGE)] : [],
    ...(options.mode === 'run'
      ? {}
      : { resume: options.mode === 'approve' ? { approvals: options.approvals ?? {} } : true }),
  })
  if (options.pauseAt === 'reply') {
    for await (const event of run.events) {
      // stops the whole process at once (a wait on a promise would let the run go on)
      if (event.type === 'text-delta') freeze('reply')
    }
  }
  const result = await run.result
  return {
    stopReason: result.stopReason,
    pending: result.pending ?? [],
    ...(result.error ? { error: result.error.message } : {}),
  }
}

/** Print `paused <where>` and block this process until it is killed. */
function freeze(where: string): never {
  writeSync(1, `paused ${where}\n`)
  for (;;) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0)
}

function scenarioTools(effect: (name: string, id?: string) => Promise<void>) {
  return [
    defineTool({
      name: 'lookup',
      description: 'Look something up',
      input: z.object({ q: z.string() }),
      idempotent: true,
      execute: async ({ q }) => {
        await effect('lookup')
        await sleep(10 + Math.random() * 20)
        return `found ${q}`
      },
    }),
    defineTool({
      name: 'send',
      description: 'Send a message',
      input: z.object({ to: z.string() }),
      execute: async ({ to }, { toolCallId }) => {
        await effect('send', toolCallId)
        await sleep(10 + Math.random() * 20)
        return `sent to ${to}`
      },
    }),
    defineTool({
      name: 'write',
      description: 'Write a file',
      input: z.object({ path: z.string() }),
      approval: 'ask',
      execute: async ({ path }, { toolCallId }) => {
        await effect('write', toolCallId)
        await sleep(10 + Math.random() * 20)
        return `wrote ${path}`
      },
    }),
  ]
}
