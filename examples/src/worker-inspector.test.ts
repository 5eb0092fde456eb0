// The inspector over the workers' database, woken by their progress notices: the wiring an app
// writes (the worker README's "Watching runs", `pnpm demo --workers N --inspect`). Polling is set
// to an hour, so every change the live streams report came from a notice.
import Anthropic from '@anthropic-ai/sdk'
import { anthropicProvider } from '@contextkit/agent-loop/anthropic'
import { textMessage } from '@contextkit/core'
import { startInspector, TOKEN_HEADER } from '@contextkit/inspector'
import {
  postgresSessionStore,
  postgresTrace,
  postgresTraceReader,
} from '@contextkit/store-postgres'
import { startAnthropicEmulator } from '@contextkit/testkit'
import { agentWorker, listenProgress } from '@contextkit/worker'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import {
  type RealDatabase,
  realDatabase,
  realServer,
  realServerNote,
} from '../../packages/store-postgres/src/test-server.js'
import { type SseReader, sseReader } from '../../test-utils/sse-events.js'

const onServer = 'url' in realServer ? describe : describe.skip

/** Events of `reader` until one whose data matches `wanted` (each must be `change`). */
async function changeUntil(reader: SseReader, wanted: RegExp): Promise<string[]> {
  const seen: string[] = []
  for (;;) {
    const e = await reader.next()
    expect(e.event).toBe('change')
    seen.push(e.data)
    if (wanted.test(e.data)) return seen
  }
}

onServer(`the inspector woken by the workers' notices${realServerNote}`, () => {
  let db: RealDatabase
  let pool: pg.Pool
  beforeAll(async () => {
    db = await realDatabase('live_inspector')
    pool = new pg.Pool({ connectionString: db.url, max: 6 })
  }, 60_000)
  afterAll(async () => {
    await pool?.end()
    await db?.drop()
  })

  test('a job on a worker shows on the live streams at once, with polling an hour apart', async () => {
    const emulator = await startAnthropicEmulator({
      script: [{ text: 'First answer.' }, { text: 'Second answer.' }],
    })
    const client = new Anthropic({ apiKey: 'test', baseURL: emulator.url, maxRetries: 0 })
    const store = postgresSessionStore(pool)
    const progress = await listenProgress({ connection: db.url })
    const inspector = await startInspector({
      sessions: store,
      traces: postgresTraceReader(pool),
      changes: (onChange) => progress.subscribe((notice) => onChange(notice.sessionId)),
      pollIntervalMs: 3_600_000,
    })
    const worker = await agentWorker({
      connection: db.url,
      store,
      concurrency: 1,
      run: (job) => ({
        provider: anthropicProvider({ client }),
        model: 'claude-haiku-4-5',
        trace: postgresTrace(pool, job.sessionId),
      }),
    })
    const auth = { [TOKEN_HEADER]: inspector.token }
    const api = (path: string) => fetch(new URL(path, inspector.url), { headers: auth })
    const list = sseReader(await api('api/events'))
    try {
      // no session yet: the list starts empty
      expect(await list.next()).toEqual({ event: 'ready', data: '' })
      await worker.enqueueMessage('live-1', textMessage('user', 'Hello?'))
      const listed = await changeUntil(list, /^live-1@.*ended$/)
      expect(listed.length).toBeGreaterThanOrEqual(1)

      const session = sseReader(await api('api/sessions/live-1/events'))
      try {
        const ready = await session.next()
        expect(ready.event).toBe('ready')
        await worker.enqueueMessage('live-1', textMessage('user', 'And again?'))
        const changes = await changeUntil(session, /./)
        expect(changes[0]).not.toBe(ready.data)
        // the list is woken too; the page then reads both answers
        await changeUntil(list, /^live-1@/)
        await expect
          .poll(
            async () =>
              ((await (await api('api/sessions/live-1')).json()) as { steps: number }).steps,
            { timeout: 30_000 },
          )
          .toBe(2)
      } finally {
        await session.close()
      }
    } finally {
      await list.close()
      await worker.close()
      await inspector.close()
      await progress.close()
      await emulator.close()
    }
  }, 120_000)
})
