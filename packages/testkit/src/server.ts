/**
 * `startAnthropicEmulator`: a `node:http` server on 127.0.0.1 that speaks the Anthropic
 * Messages API (plus an OpenAI-compatible `/v1/completions`), answering from a script.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { type CacheModelOptions, type CacheStats, PromptCache } from './cache-model.js'
import { handleChatCompletions } from './chat-completions.js'
import { handleCompletions } from './completions.js'
import { EmulatorConfigError, TestkitError } from './errors.js'
import { type EmulatorState, Exchange, type RecordedRequest } from './exchange.js'
import { handleCountTokens, handleMessages } from './messages-endpoint.js'
import {
  DEFAULT_MODELS,
  type EmulatorModel,
  modelInfoWire,
  modelPage,
  resolveModels,
} from './models.js'
import { decodeBody, MAX_BODY_DEPTH, nestsDeeper, requestTarget } from './request-body.js'
import { type Script, ScriptRunner, type TransportOptions, transportProblem } from './script.js'
import type { KNOWN_BETAS } from './strict.js'
import { ThinkingLedger } from './thinking-ledger.js'
import { ThreadStore } from './threads.js'

/** Options of {@link startAnthropicEmulator}. */
export interface AnthropicEmulatorOptions {
  /** What the model answers: a list of steps (one per request) or a function of the request. */
  script: Script
  /** Models served; others get 404. Default {@link DEFAULT_MODELS}. */
  models?: readonly EmulatorModel[]
  /** TCP port on 127.0.0.1. Default `0` (a free port). */
  port?: number
  /**
   * When set, requests must carry this key (`x-api-key: K` or `Authorization: Bearer K`), else
   * 401. Default: any non-empty key is accepted (but one is required).
   */
  apiKey?: string
  /** Transport defaults for every reply (each step may override). Default: whole frames, no delays, 16-char deltas. */
  transport?: TransportOptions
  /** Largest accepted request body in bytes; larger gets 413 `request_too_large`. Default 32 MiB. */
  maxBodyBytes?: number
  /**
   * Also reject what a lenient emulator would let through: unknown top-level fields ("…: Extra
   * inputs are not permitted") and unknown `anthropic-beta` values, as the real API does.
   * Default `false`, so clients newer than the emulator keep working.
   */
  strict?: boolean
  /** `anthropic-beta` values accepted in strict mode besides {@link KNOWN_BETAS}. Default `[]`. */
  extraBetas?: readonly string[]
  /**
   * The prompt-cache model: `false` turns it off (every input token reported uncached, as
   * before caching existed); an object tunes it (clock, minimum lengths, lookback). Default: on.
   */
  cache?: CacheModelOptions | false
}

/** A running emulator. */
export interface AnthropicEmulator {
  /** Base URL, e.g. `http://127.0.0.1:41234` (pass as the SDK's `baseURL`). */
  readonly url: string
  /** The port it listens on. */
  readonly port: number
  /** Every request received, in arrival order. */
  readonly requests: RecordedRequest[]
  /** Script problems (exhausted list, a step that threw or was invalid), each answered with a 500. */
  readonly failures: TestkitError[]
  /** Steps of a list script not yet used (`Infinity` for a function script). */
  readonly remainingSteps: number
  /** Prompt-cache totals and per-request figures so far, and the entries alive now. */
  cacheStats(): CacheStats
  /** Forgets every cache entry and the recorded cache figures. */
  clearCache(): void
  /** Stops listening and drops open connections. Idempotent. */
  close(): Promise<void>
}

const DEFAULT_MAX_BODY = 32 * 1024 * 1024

const OPTION_KEYS: ReadonlySet<string> = new Set([
  'script',
  'models',
  'port',
  'apiKey',
  'transport',
  'maxBodyBytes',
  'strict',
  'extraBetas',
  'cache',
] satisfies Array<keyof AnthropicEmulatorOptions>)

function checkOptions(options: AnthropicEmulatorOptions): void {
  if (typeof options !== 'object' || options === null)
    throw new EmulatorConfigError('options object is required')
  for (const key of Object.keys(options)) {
    if (!OPTION_KEYS.has(key)) {
      throw new EmulatorConfigError(
        `unknown option "${key}" (known: ${[...OPTION_KEYS].join(', ')})`,
      )
    }
  }
  const s = options.script
  if (typeof s !== 'function' && !Array.isArray(s)) {
    throw new EmulatorConfigError('`script` must be an array of steps or a function')
  }
  const port = options.port ?? 0
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new EmulatorConfigError(`port must be an integer 0–65535, got ${String(port)}`)
  }
  const problem = transportProblem(options.transport)
  if (problem) throw new EmulatorConfigError(problem)
  const max = options.maxBodyBytes ?? DEFAULT_MAX_BODY
  if (!Number.isInteger(max) || max < 1)
    throw new EmulatorConfigError('maxBodyBytes must be a positive integer')
  if (options.strict !== undefined && typeof options.strict !== 'boolean') {
    throw new EmulatorConfigError('strict must be a boolean')
  }
  const betas = options.extraBetas ?? []
  if (!Array.isArray(betas) || !betas.every((b) => typeof b === 'string')) {
    throw new EmulatorConfigError('extraBetas must be an array of strings')
  }
}

function headerRecord(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(req.headers)) {
    if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v
  }
  return out
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s)
  } catch {
    return s
  }
}

async function readBody(req: IncomingMessage, max: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req) {
    size += (chunk as Buffer).length
    if (size > max) return undefined
    chunks.push(chunk as Buffer)
  }
  return Buffer.concat(chunks)
}

/** The routes the emulator answers, for the 404 of any other. */
const EMULATED_ROUTES =
  'POST /v1/messages, POST /v1/messages/count_tokens, GET /v1/models, GET /v1/models/{id}, POST /v1/completions, POST /v1/chat/completions'

/** The 404 message of a route the emulator does not answer (batches, files, …). */
export function notEmulatedMessage(method: string, path: string): string {
  return `${method} ${path} is not emulated by @contextkit/testkit (batches, files and other endpoints are not emulated; emulated: ${EMULATED_ROUTES})`
}

function authProblem(
  headers: Record<string, string>,
  apiKey: string | undefined,
): string | undefined {
  const bearer = /^Bearer\s+(.+)$/i.exec(headers.authorization ?? '')?.[1]
  const key = headers['x-api-key'] || bearer
  if (!key) return 'x-api-key header is required'
  if (apiKey !== undefined && key !== apiKey) return 'invalid x-api-key'
  return undefined
}

/** What routing needs from the options besides the shared state. */
interface RouteLimits {
  maxBody: number
  apiKey: string | undefined
}

/** The state every exchange shares: the script, models, transport defaults, caches, ids. */
function emulatorState(
  options: AnthropicEmulatorOptions,
  failures: TestkitError[],
  signal: AbortSignal,
): EmulatorState {
  const counters = new Map<string, number>()
  const models = resolveModels(options.models ?? DEFAULT_MODELS)
  return {
    runner: new ScriptRunner(options.script),
    models,
    failures,
    signal,
    cache: new PromptCache(options.cache === false ? { enabled: false } : options.cache),
    transport: {
      writeSize: options.transport?.writeSize,
      chunkDelayMs: options.transport?.chunkDelayMs ?? 0,
      headersDelayMs: options.transport?.headersDelayMs ?? 0,
      deltaChars: options.transport?.deltaChars ?? 16,
    },
    threads: new ThreadStore(),
    thinking: new ThinkingLedger(),
    strict: options.strict ?? false,
    extraBetas: [...(options.extraBetas ?? [])],
    nextId(prefix) {
      const n = (counters.get(prefix) ?? 0) + 1
      counters.set(prefix, n)
      return `${prefix}${'0'.repeat(Math.max(0, 22 - String(n).length))}${n}`
    },
  }
}

/**
 * Read the body into the record (`rawBody`, and `body` when it is JSON); its size in bytes as
 * received, or `undefined` when it was too large (the 413 is sent).
 */
async function readRequestBody(x: Exchange, maxBody: number): Promise<number | undefined> {
  const raw = await readBody(x.req, maxBody)
  if (raw === undefined) {
    x.error(413, `Request exceeds the maximum allowed number of bytes (${maxBody})`, {
      connection: 'close',
    })
    return undefined
  }
  const text = decodeBody(raw)
  x.record.rawBody = text ?? raw.toString('utf8')
  if (raw.length > 0 && text !== null) {
    try {
      x.record.body = JSON.parse(text)
    } catch {
      // Kept as rawBody; POST endpoints answer 400 (after the auth check).
    }
  }
  return raw.length
}

/** The 401/400 a request gets before any endpoint sees it (key, version header, JSON, depth). */
function requestRefusal(
  x: Exchange,
  bodyBytes: number,
  apiKey: string | undefined,
): [number, string] | undefined {
  const { method, path, headers } = x.record
  if (path !== '/v1/completions' && path !== '/v1/chat/completions') {
    const auth = authProblem(headers, apiKey)
    if (auth) return [401, auth]
    if (!headers['anthropic-version']) return [400, 'anthropic-version: header is required']
  }
  if (method === 'POST' && bodyBytes > 0 && x.record.body === undefined) {
    return [400, 'There was an error parsing the body as JSON']
  }
  if (nestsDeeper(x.record.body)) {
    return [400, `The request body nests deeper than ${MAX_BODY_DEPTH} levels`]
  }
  return undefined
}

/** Answer `GET /v1/models` and `GET /v1/models/{id}`. */
function answerModels(x: Exchange): void {
  const { path, query } = x.record
  const models = x.state.models
  let json: string
  if (path === '/v1/models') {
    json = JSON.stringify(modelPage([...models.values()], new URLSearchParams(query)))
  } else {
    const m = models.get(safeDecode(path.slice('/v1/models/'.length)))
    if (!m) {
      x.error(404, `model: ${path.slice('/v1/models/'.length)}`)
      return
    }
    json = JSON.stringify(modelInfoWire(m))
  }
  x.head(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json) })
  x.res.end(json)
}

/** Hand a checked request to its endpoint, or answer 404. */
function dispatch(x: Exchange): Promise<void> | void {
  const { method, path, body } = x.record
  if (method === 'POST') {
    if (path === '/v1/messages') return handleMessages(x, body)
    if (path === '/v1/messages/count_tokens') return handleCountTokens(x, body)
    if (path === '/v1/completions') return handleCompletions(x, body)
    if (path === '/v1/chat/completions') return handleChatCompletions(x, body)
  }
  if (method === 'GET' && (path === '/v1/models' || path.startsWith('/v1/models/'))) {
    return answerModels(x)
  }
  return x.error(404, notEmulatedMessage(method, path))
}

/** One request: read its body, refuse what no endpoint takes, then answer it. */
async function route(x: Exchange, limits: RouteLimits): Promise<void> {
  const bodyBytes = await readRequestBody(x, limits.maxBody)
  if (bodyBytes === undefined) return
  const refusal = requestRefusal(x, bodyBytes, limits.apiKey)
  if (refusal) return x.error(refusal[0], refusal[1])
  return dispatch(x)
}

/**
 * The server's request listener: record the request, route it, and turn an emulator failure
 * into a recorded `TestkitError` and a 500 (or a dropped connection once the reply started).
 */
function requestListener(
  state: EmulatorState,
  requests: RecordedRequest[],
  limits: RouteLimits,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const { path, query } = requestTarget(req.url)
    const record: RecordedRequest = {
      method: req.method ?? 'GET',
      path,
      query,
      headers: headerRecord(req),
      body: undefined,
      rawBody: '',
      requestId: state.nextId('req_01'),
      status: undefined,
    }
    requests.push(record)
    const x = new Exchange(req, res, record, state)
    route(x, limits).catch((e: unknown) => {
      const err = new TestkitError(`emulator failed on ${record.method} ${record.path}`, {
        cause: e,
      })
      state.failures.push(err)
      if (!res.headersSent)
        x.error(500, 'testkit: internal emulator error', { 'x-should-retry': 'false' }, 'api_error')
      else res.destroy()
    })
  }
}

/** Listen on 127.0.0.1 (`port` 0: a free one); resolves with the port taken. */
async function listen(server: Server, port: number): Promise<number> {
  server.on('connection', (socket) => socket.setNoDelay(true))
  server.on('clientError', (_err, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n')
    else socket.destroy()
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e) =>
      reject(new EmulatorConfigError(`cannot listen on 127.0.0.1:${port}`, { cause: e })),
    )
    server.listen(port, '127.0.0.1', () => resolve())
  })
  return (server.address() as AddressInfo).port
}

/**
 * Starts the emulator on 127.0.0.1. Throws {@link EmulatorConfigError} for bad options.
 *
 * Endpoints: `POST /v1/messages` (JSON and SSE), `POST /v1/messages/count_tokens`,
 * `GET /v1/models`, `GET /v1/models/{id}`, `POST /v1/completions` and `POST /v1/chat/completions`
 * (OpenAI-compatible).
 */
export async function startAnthropicEmulator(
  options: AnthropicEmulatorOptions,
): Promise<AnthropicEmulator> {
  checkOptions(options)
  const requests: RecordedRequest[] = []
  const failures: TestkitError[] = []
  const closing = new AbortController()
  const state = emulatorState(options, failures, closing.signal)
  const limits = { maxBody: options.maxBodyBytes ?? DEFAULT_MAX_BODY, apiKey: options.apiKey }
  const server = createServer(requestListener(state, requests, limits))
  const port = await listen(server, options.port ?? 0)
  let closed: Promise<void> | undefined
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    failures,
    get remainingSteps() {
      return state.runner.remaining
    },
    cacheStats: () => state.cache.stats(),
    clearCache: () => state.cache.clear(),
    close() {
      closed ??= new Promise<void>((resolve) => {
        closing.abort()
        server.close(() => resolve())
        server.closeAllConnections()
      })
      return closed
    },
  }
}
