import { isSessionId } from '@contextkit/core'
import { Approvals, DecisionSchema } from './approvals.js'
import { InspectorData } from './inspector-data.js'
import { type InspectorOptions, type ResolvedOptions, resolveOptions } from './options.js'
import { ASSET_TYPES, asset, pageHtml } from './page.js'
import {
  cookieName,
  type HostRule,
  hostAllowed,
  originAllowed,
  requestToken,
  SECURITY_HEADERS,
  sameToken,
  TOKEN_HEADER,
} from './security.js'
import { sessionSource } from './session-source.js'
import { LiveStreams } from './sse.js'
import { jsonlTraceDirectory } from './trace-reader.js'

/**
 * A fetch-style handler, `(request) => Promise<Response>`, to mount in any server (node:http,
 * Hono, a Next route). `token` is the token requests must carry; `close()` ends live streams.
 */
export interface InspectorHandler {
  /** Answer one request. */
  (request: Request): Promise<Response>
  /** The token every request must carry (the one given, or the one made up). */
  readonly token: string
  /**
   * End the open live streams and unsubscribe from `changes` (the handler answers new requests
   * still; streams opened after this poll only).
   */
  close(): void
}

/** Largest request body read (a decision is a few hundred bytes). */
const MAX_BODY_BYTES = 16 * 1024

function text(status: number, body: string, headers: Record<string, string> = {}): Response {
  return new Response(body, {
    status,
    headers: { ...SECURITY_HEADERS, 'content-type': 'text/plain; charset=utf-8', ...headers },
  })
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { ...SECURITY_HEADERS, 'content-type': 'application/json; charset=utf-8' },
  })
}

interface Context {
  options: ResolvedOptions
  rule: HostRule
  data: InspectorData
  approvals: Approvals
  streams: LiveStreams
}

/** The tail of the path after the mount point: `''` (the page), `app.js`, `api/…`. */
function routeOf(pathname: string): string {
  const api = pathname.indexOf('/api/')
  if (api >= 0) return pathname.slice(api + 1)
  return pathname.slice(pathname.lastIndexOf('/') + 1)
}

function intParam(url: URL, name: string, fallback: number): number {
  const n = Number.parseInt(url.searchParams.get(name) ?? '', 10)
  return Number.isSafeInteger(n) ? n : fallback
}

/** The printed URL's `?token=`: set the cookie and send the browser on without the token. */
function tokenLanding(ctx: Context, url: URL): Response {
  if (!sameToken(url.searchParams.get('token'), ctx.options.token))
    return text(401, 'unauthorized\n')
  const port = ctx.rule.port() ?? 0
  const cookie = `${cookieName(port)}=${ctx.options.token}; HttpOnly; SameSite=Strict; Path=/`
  return text(303, 'see the page\n', { location: url.pathname, 'set-cookie': cookie })
}

async function readDecision(request: Request) {
  if (!/^application\/json\b/i.test(request.headers.get('content-type') ?? '')) return undefined
  const body = await request.text()
  if (body.length > MAX_BODY_BYTES) return undefined
  try {
    const parsed = DecisionSchema.safeParse(JSON.parse(body))
    return parsed.success ? parsed.data : undefined
  } catch {
    return undefined
  }
}

async function postDecision(ctx: Context, request: Request, id: string): Promise<Response> {
  // a cookie alone never decides: the page's script sends the token in a header
  if (!sameToken(request.headers.get(TOKEN_HEADER), ctx.options.token)) {
    return text(401, 'unauthorized\n')
  }
  const decision = await readDecision(request)
  if (!decision)
    return json(400, { error: 'expected {"toolCallId", "approve", "reason"?} as JSON' })
  const outcome = await ctx.approvals.decide(id, decision)
  return outcome.ok
    ? json(202, { accepted: true })
    : json(outcome.status, { error: outcome.message })
}

async function sessionRoute(ctx: Context, request: Request, url: URL, parts: string[]) {
  const id = parts[0] ?? ''
  if (!isSessionId(id)) return json(400, { error: 'not a session id' })
  const what = parts[1] ?? ''
  if (request.method === 'POST') {
    return what === 'approvals' && parts.length === 2
      ? postDecision(ctx, request, id)
      : text(405, 'method not allowed\n')
  }
  if (!(await ctx.data.exists(id))) return json(404, { error: 'no such session' })
  if (what === '' && parts.length === 1) {
    const summary = await ctx.data.summary(id)
    const failed = ctx.approvals.failure(id)
    return json(200, failed ? { ...summary, error: `resuming failed: ${failed}` } : summary)
  }
  if (what === 'steps' && parts.length === 2) {
    // `?tail=N`: the newest N steps (the first screen, without asking for the count first)
    const tail = intParam(url, 'tail', 0)
    const page =
      tail > 0
        ? await ctx.data.tail(id, tail)
        : await ctx.data.steps(id, intParam(url, 'from', 1), intParam(url, 'count', 50))
    return json(200, page)
  }
  if (what === 'events' && parts.length === 2) {
    return ctx.streams.response(() => ctx.data.version(id), SECURITY_HEADERS, id)
  }
  return json(404, { error: 'not found' })
}

async function apiRoute(ctx: Context, request: Request, url: URL, route: string) {
  const parts = route.split('/').slice(1)
  if (parts[0] === 'sessions' && parts.length >= 2) {
    return sessionRoute(ctx, request, url, parts.slice(1).map(decodeURIComponent))
  }
  if (request.method !== 'GET') return text(405, 'method not allowed\n')
  if (route === 'api/sessions') return json(200, await ctx.data.list())
  if (route === 'api/events') {
    const marker = async () =>
      (await ctx.data.list()).map((s) => `${s.id}@${s.lastActivity}${s.state}`).join()
    return ctx.streams.response(marker, SECURITY_HEADERS)
  }
  return json(404, { error: 'not found' })
}

async function route(ctx: Context, request: Request): Promise<Response> {
  const url = new URL(request.url)
  if (!hostAllowed(url.host, ctx.rule)) return text(403, 'this host name is not the inspector\n')
  if (!originAllowed(request, url.host)) return text(403, 'cross-origin request refused\n')
  const where = routeOf(url.pathname)
  if (where === '' && request.method === 'GET' && url.searchParams.has('token')) {
    return tokenLanding(ctx, url)
  }
  if (!sameToken(requestToken(request, ctx.rule.port() ?? 0), ctx.options.token)) {
    return text(401, 'unauthorized\n')
  }
  if (where.startsWith('api/')) return apiRoute(ctx, request, url, where)
  if (request.method !== 'GET') return text(405, 'method not allowed\n')
  if (where === '') {
    const html = pageHtml(ctx.options.token, ctx.approvals.enabled)
    return text(200, html, { 'content-type': 'text/html; charset=utf-8' })
  }
  const bytes = await asset(where)
  if (!bytes) return text(404, 'not found\n')
  return new Response(bytes, {
    status: 200,
    headers: {
      ...SECURITY_HEADERS,
      'content-type': ASSET_TYPES[where] ?? 'application/octet-stream',
    },
  })
}

/** Build the handler over resolved options (shared by `startInspector`). */
export function createHandler(
  options: ResolvedOptions,
  port: () => number | undefined,
): InspectorHandler {
  const traces =
    typeof options.traces === 'string' ? jsonlTraceDirectory(options.traces) : options.traces
  const data = new InspectorData(sessionSource(options.sessions), traces)
  const ctx: Context = {
    options,
    rule: { host: options.host, port },
    data,
    approvals: new Approvals(data, options.resume),
    streams: new LiveStreams({ pollMs: options.pollIntervalMs, changes: options.changes }),
  }
  const handler = async (request: Request): Promise<Response> => {
    try {
      return await route(ctx, request)
    } catch {
      return text(500, 'the inspector could not answer\n')
    }
  }
  return Object.assign(handler, { token: options.token, close: () => ctx.streams.close() })
}

/**
 * The inspector as a fetch-style handler to mount in your own server: the same page and API as
 * `startInspector`, with the same checks (token on every request, POST with the token header for
 * decisions, `Host` and `Origin` its own). With `port` given, the `Host` must name that port;
 * without it, any port of the host (`127.0.0.1` and the other loopback names by default).
 * Subscribes to `changes` at once. Throws a `ValidationError` naming a bad or unknown option, and
 * an `InspectorChangesError` when `changes` throws or returns no unsubscribe function.
 */
export function inspectorHandler(options: InspectorOptions): InspectorHandler {
  const resolved = resolveOptions(options, 'inspectorHandler')
  const port = options.port
  return createHandler(resolved, () => (port === undefined || port === 0 ? undefined : port))
}
