// Helpers for this package's tests: a migrated PGlite, a pglite-socket server on 127.0.0.1,
// and session entries to append. Not part of the published build (tsup bundles index.ts only).

import { connect, createServer, type Socket } from 'node:net'
import type { SessionEntry } from '@contextkit/core'
import { PGlite } from '@electric-sql/pglite'
import { PGLiteSocketServer } from '@electric-sql/pglite-socket'
import { type MigrateOptions, migrate } from './migrate.js'

/** A fresh in-memory PGlite with the store tables created. */
export async function migratedPglite(options: MigrateOptions = {}): Promise<PGlite> {
  const db = await PGlite.create()
  await migrate(db, options)
  return db
}

/** A Postgres wire-protocol server on 127.0.0.1 (random port) serving `db`. */
export async function socketServer(
  db: PGlite,
  maxConnections = 16,
): Promise<{ url: string; port: number; stop: () => Promise<void> }> {
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections })
  await server.start()
  const conn = server.getServerConn() // "127.0.0.1:PORT"
  const port = Number(conn.slice(conn.lastIndexOf(':') + 1))
  return {
    url: `postgresql://postgres:postgres@127.0.0.1:${port}/postgres?sslmode=disable`,
    port,
    stop: () => server.stop(),
  }
}

let counter = 0

/** A text message entry (`id` unique in the process unless given). */
export function messageEntry(text: string, id = `m${++counter}`): SessionEntry {
  return {
    type: 'message',
    id,
    parentId: null,
    ts: '2026-01-01T00:00:00.000Z',
    message: { role: 'user', content: [{ type: 'text', text }] },
  }
}

/** A custom entry carrying `data` as is. */
export function customEntry(data: unknown, id = `c${++counter}`): SessionEntry {
  return {
    type: 'custom',
    id,
    parentId: null,
    ts: '2026-01-01T00:00:00.000Z',
    customType: 'test',
    data,
  }
}

/** One turn: user message, assistant tool call, tool result, assistant answer. */
export function turnEntries(n: number, prefix = 't'): SessionEntry[] {
  const ts = '2026-01-01T00:00:00.000Z'
  const id = (k: string) => `${prefix}${n}-${k}`
  return [
    {
      type: 'message',
      id: id('u'),
      parentId: null,
      ts,
      message: { role: 'user', content: [{ type: 'text', text: `question ${n}` }] },
    },
    {
      type: 'message',
      id: id('a1'),
      parentId: id('u'),
      ts,
      message: {
        role: 'assistant',
        content: [
          {
            type: 'tool_call',
            id: id('call'),
            name: 'read_file',
            input: { path: 'notes.md', offset: 0 },
          },
        ],
      },
    },
    {
      type: 'message',
      id: id('r'),
      parentId: id('a1'),
      ts,
      message: {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            toolCallId: id('call'),
            content: [{ type: 'text', text: 'file body '.repeat(20) }],
            isError: false,
          },
        ],
      },
    },
    {
      type: 'message',
      id: id('a2'),
      parentId: id('r'),
      ts,
      message: { role: 'assistant', content: [{ type: 'text', text: `answer ${n}` }] },
    },
  ]
}

/**
 * A TCP proxy on 127.0.0.1 in front of `targetPort` that drops a connection (both sides, the
 * offending bytes never forwarded) the first time `cutWhen` matches what the client sends.
 */
export async function cuttingProxy(
  targetPort: number,
  cutWhen: (clientBytes: string) => boolean,
): Promise<{ port: number; cuts: () => number; close: () => Promise<void> }> {
  let cuts = 0
  let armed = true
  const sockets = new Set<Socket>()
  const server = createServer((client) => {
    const upstream = connect(targetPort, '127.0.0.1')
    for (const s of [client, upstream]) {
      sockets.add(s)
      s.on('close', () => sockets.delete(s))
      s.on('error', () => undefined)
    }
    client.on('data', (chunk: Buffer) => {
      if (armed && cutWhen(chunk.toString('latin1'))) {
        armed = false
        cuts++
        client.destroy()
        upstream.destroy()
        return
      }
      upstream.write(chunk)
    })
    upstream.on('data', (chunk: Buffer) => client.write(chunk))
    client.on('close', () => upstream.destroy())
    upstream.on('close', () => client.destroy())
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  if (typeof address !== 'object' || address === null) throw new Error('proxy has no port')
  return {
    port: address.port,
    cuts: () => cuts,
    close: async () => {
      for (const s of sockets) s.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
