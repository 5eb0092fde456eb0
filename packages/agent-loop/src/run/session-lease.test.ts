// One run per session at a time, in one process (the cross-process runs are in
// testing/session-lease-processes.test.ts): the real JSONL store, the real SDK and testkit.
import { mkdtemp, rm, unlink } from 'node:fs/promises'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { SessionBusyError, textMessage, ValidationError } from '@contextkit/core'
import { jsonlSessionStore, SESSION_LEASE_SUFFIX } from '@contextkit/store-files'
import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import { emulated, onCleanup, wireText } from '../test-support.js'
import { defineTool } from '../tools/define-tool.js'
import { runAgent } from './run-agent.js'

async function tempDir() {
  const dir = await mkdtemp(join(tmpdir(), 'agent-lease-'))
  onCleanup(() => rm(dir, { recursive: true, force: true }))
  return dir
}

/** A tool that waits until `open()` is called (or the run is aborted). */
function gate() {
  let open!: () => void
  const opened = new Promise<void>((resolve) => {
    open = resolve
  })
  let entered!: () => void
  const reached = new Promise<void>((resolve) => {
    entered = resolve
  })
  const tool = defineTool({
    name: 'wait',
    description: 'Wait',
    input: z.object({}),
    timeoutMs: 60_000,
    execute: async (_, { signal }) => {
      entered()
      await Promise.race([opened, new Promise((r) => signal.addEventListener('abort', r))])
      return 'waited'
    },
  })
  return { tool, open, reached }
}

const script = [{ toolUse: { name: 'wait', input: {} } }, 'First done.', 'Second done.']

describe('runAgent takes the session lease', () => {
  test('a second run waits for the first, then goes on from its turns on one chain', async () => {
    const dir = await tempDir()
    const { provider, bodies } = await emulated(script)
    const g = gate()
    const base = jsonlSessionStore(dir, { fsync: false })
    let refused = 0
    let onRefused: () => void = () => {}
    const store = {
      ...base,
      acquireLease: async (id: string, request: { runId: string }) => {
        const attempt = await base.acquireLease(id, request)
        if (!attempt.acquired && ++refused === 1) onRefused()
        return attempt
      },
    }
    const session = { store, id: 'busy' }
    const first = runAgent({
      provider,
      model: 'claude-haiku-4-5',
      tools: [g.tool],
      session,
      messages: [textMessage('user', 'one')],
      runId: 'run_one',
    })
    await g.reached
    const waiting = new Promise<void>((resolve) => {
      onRefused = resolve
    })
    const second = runAgent({
      provider,
      model: 'claude-haiku-4-5',
      session,
      messages: [textMessage('user', 'two')],
    })
    await waiting // the second run is refused while the first holds the session
    g.open()
    expect((await first.result).stopReason).toBe('end_turn')
    expect((await second.result).stopReason).toBe('end_turn')
    const last = bodies().at(-1)
    expect(last?.messages.map(wireText)).toContain('First done.')
    const { entries } = await base.load('busy')
    const children = new Map<string | null, number>()
    for (const e of entries)
      if ('parentId' in e) children.set(e.parentId, (children.get(e.parentId) ?? 0) + 1)
    expect(Math.max(...children.values())).toBe(1)
  })

  test('with a short sessionWaitMs the second run ends with session_busy naming the holder', async () => {
    const dir = await tempDir()
    const { provider } = await emulated(script)
    const g = gate()
    const session = { store: jsonlSessionStore(dir, { fsync: false }), id: 'busy' }
    const first = runAgent({
      provider,
      model: 'claude-haiku-4-5',
      tools: [g.tool],
      session,
      messages: [textMessage('user', 'one')],
      runId: 'run_one',
    })
    await g.reached
    const second = await runAgent({
      provider,
      model: 'claude-haiku-4-5',
      session,
      messages: [textMessage('user', 'two')],
      sessionWaitMs: 30,
    }).result
    expect(second.stopReason).toBe('error')
    expect(SessionBusyError.isInstance(second.error)).toBe(true)
    expect(second.error?.code).toBe('session_busy')
    expect(second.error?.message).toContain(`run run_one (host ${hostname()}, pid ${process.pid})`)
    g.open()
    expect((await first.result).stopReason).toBe('end_turn')
    // nothing of the refused run reached the session
    const { entries } = await session.store.load('busy')
    expect(JSON.stringify(entries)).not.toContain('"two"')
  })

  test('an aborted run releases the lease', async () => {
    const dir = await tempDir()
    const { provider } = await emulated(script)
    const store = jsonlSessionStore(dir, { fsync: false })
    const g = gate()
    const session = { store, id: 'aborted' }
    const run = runAgent({
      provider,
      model: 'claude-haiku-4-5',
      tools: [g.tool],
      session,
      messages: [textMessage('user', 'one')],
    })
    await g.reached
    run.abort()
    expect((await run.result).stopReason).toBe('aborted')
    const next = await store.acquireLease('aborted', { runId: 'probe', ttlMs: 60_000 })
    expect(next.acquired).toBe(true)
  })

  test('a run whose lease is lost mid-run is aborted with session_lease_lost', async () => {
    const dir = await tempDir()
    const { provider } = await emulated(script)
    // a short lease, so the heartbeat runs every 30 ms
    const store = jsonlSessionStore(dir, { fsync: false, leaseTtlMs: 90 })
    const g = gate()
    const run = runAgent({
      provider,
      model: 'claude-haiku-4-5',
      tools: [g.tool],
      session: { store, id: 'lost' },
      messages: [textMessage('user', 'one')],
    })
    await g.reached
    // the lease file vanishes under the running run: its next heartbeat finds the lease lost
    await unlink(join(dir, `lost${SESSION_LEASE_SUFFIX}`))
    const result = await run.result
    expect(result.stopReason).toBe('aborted')
    expect(result.error?.code).toBe('session_lease_lost')
  })

  test('sessionWaitMs without a session is refused', () => {
    expect(() =>
      runAgent({
        provider: { stream: async function* () {} } as never,
        model: 'claude-haiku-4-5',
        messages: [],
        sessionWaitMs: 5,
      }),
    ).toThrow(ValidationError)
  })
})
