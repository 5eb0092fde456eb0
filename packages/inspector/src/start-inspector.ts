import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { describeError } from '@contextkit/core'
import { InspectorListenError } from './errors.js'
import { createHandler, type InspectorHandler } from './handler.js'
import { type InspectorOptions, isLoopback, resolveOptions } from './options.js'

/** A running inspector. */
export interface Inspector {
  /** The page's address with the token: `http://127.0.0.1:PORT/?token=TOKEN`. */
  readonly url: string
  /** The port it listens on (the one picked when `port` was `0`). */
  readonly port: number
  /** The token every request must carry. */
  readonly token: string
  /** Stop serving: live streams end, open connections are closed. */
  close(): Promise<void>
}

/** Largest request body the server reads before answering 413. */
const MAX_BODY = 64 * 1024

async function bodyOf(req: IncomingMessage): Promise<Buffer | null> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req) {
    size += (chunk as Buffer).length
    if (size > MAX_BODY) return null
    chunks.push(chunk as Buffer)
  }
  return Buffer.concat(chunks)
}

function toRequest(req: IncomingMessage, body: Buffer | undefined, fallbackHost: string): Request {
  const headers = new Headers()
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v)
  }
  const url = `http://${req.headers.host ?? fallbackHost}${req.url ?? '/'}`
  return new Request(url, {
    method: req.method ?? 'GET',
    headers,
    ...(body && body.length > 0 ? { body } : {}),
  })
}

async function send(res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string> = {}
  response.headers.forEach((value, name) => {
    headers[name] = value
  })
  res.writeHead(response.status, headers)
  if (!response.body) {
    res.end()
    return
  }
  const reader = response.body.getReader()
  res.on('close', () => {
    void reader.cancel().catch(() => {})
  })
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    res.write(value)
  }
  res.end()
}

/** Answer one node:http request with the fetch-style handler. */
async function serve(
  handler: InspectorHandler,
  req: IncomingMessage,
  res: ServerResponse,
  host: string,
): Promise<void> {
  try {
    const hasBody = req.method !== 'GET' && req.method !== 'HEAD'
    const body = hasBody ? await bodyOf(req) : undefined
    if (body === null) {
      res.writeHead(413, { 'content-type': 'text/plain; charset=utf-8' }).end('too large\n')
      return
    }
    await send(res, await handler(toRequest(req, body, host)))
  } catch {
    if (!res.headersSent) res.writeHead(500).end()
    else res.destroy()
  }
}

function listen(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => {
      reject(
        new InspectorListenError(
          `The inspector cannot listen on ${host}:${port}: ${describeError(error)}`,
          {
            cause: error,
            details: { host, port },
          },
        ),
      )
    }
    server.once('error', onError)
    server.listen(port, host, () => {
      server.off('error', onError)
      resolve((server.address() as AddressInfo).port)
    })
  })
}

/** `127.0.0.1`, or a literal IPv6 address in brackets, as a URL writes the host. */
function urlHost(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host
}

/**
 * Serve the inspector page and its API on `host:port` (default `127.0.0.1`, a free port) until
 * `close()`. Every request needs the token (the returned `url` carries it; the page then keeps it
 * in a cookie and a header); decisions are POSTs with the token in a header; a `Host` or `Origin`
 * that is not the inspector's own is refused. Another host than loopback is served only when
 * asked, and `log` gets a warning line. With `changes`, the live streams are woken by the app's
 * feed as well as by polling. Throws a `ValidationError` for bad options, an
 * `InspectorChangesError` when `changes` throws or returns no unsubscribe function, and an
 * {@link InspectorListenError} when the address cannot be bound.
 */
export async function startInspector(options: InspectorOptions): Promise<Inspector> {
  const resolved = resolveOptions(options, 'startInspector')
  let bound: number | undefined
  const handler = createHandler(resolved, () => bound)
  const server = createServer((req, res) => {
    void serve(handler, req, res, `${urlHost(resolved.host)}:${bound ?? 0}`)
  })
  try {
    bound = await listen(server, resolved.host, resolved.port)
  } catch (error) {
    handler.close()
    throw error
  }
  if (!isLoopback(resolved.host)) {
    resolved.log(
      `inspector: warning: serving on ${resolved.host}, not loopback: anyone who can reach this address and has the token can read the sessions and approve tool calls`,
    )
  }
  const port = bound
  return {
    url: `http://${urlHost(resolved.host)}:${port}/?token=${resolved.token}`,
    port,
    token: resolved.token,
    close: () =>
      new Promise<void>((resolve) => {
        handler.close()
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}
