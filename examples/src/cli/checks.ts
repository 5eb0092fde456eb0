import { BUILTIN_MODELS, getModelInfo } from '@contextkit/core'
import { closest, distance } from 'fastest-levenshtein'
import { DemoUsageError } from './errors.js'

/** Model ids core's table knows, for suggestions. */
export const KNOWN_MODEL_IDS: readonly string[] = Object.keys(BUILTIN_MODELS)

/**
 * The candidate closest to `input` (Levenshtein distance, `fastest-levenshtein`), when it is
 * close enough to be a typo: at most 40 % of the input's length apart (3 edits at least), or
 * the shortest candidate that starts with it (a name cut short).
 */
export function closestMatch(input: string, candidates: readonly string[]): string | undefined {
  if (candidates.length === 0) return undefined
  const extended = candidates.filter((c) => c.startsWith(input)).sort((a, b) => a.length - b.length)
  if (extended[0] !== undefined) return extended[0]
  const best = closest(input, [...candidates])
  return distance(input, best) <= Math.max(3, Math.floor(input.length * 0.4)) ? best : undefined
}

function suggestion(id: string, candidates: readonly string[]): string {
  const best = closestMatch(id, candidates)
  return best === undefined ? '' : ` (did you mean ${best}?)`
}

/**
 * Check a Claude model id against core's model table (`getModelInfo(id).known`: dated ids such
 * as `claude-haiku-4-5-20251001` count). An unknown id is a {@link DemoUsageError} naming the
 * closest known id (Levenshtein distance, `fastest-levenshtein`).
 */
export function checkModelId(id: string, known: readonly string[] = KNOWN_MODEL_IDS): void {
  if (getModelInfo(id).known) return
  throw new DemoUsageError('model', `unknown model "${id}"${suggestion(id, known)}`)
}

/** What a server at `--base-url` said about itself. */
export interface BaseUrlProbe {
  /** The base URL without a trailing slash. */
  baseURL: string
  /** Model ids from `GET {baseURL}/models` (`data[].id`); empty when it lists none. */
  models: string[]
}

/** Options of {@link probeBaseUrl}. */
export interface ProbeOptions {
  /** Longest wait for an answer. Default `5000` ms. */
  timeoutMs?: number
  fetch?: typeof fetch
}

function reason(error: unknown, url?: URL): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause
  if (typeof cause?.code === 'string') return cause.code
  if (cause?.message === 'bad port') return `fetch refuses port ${url?.port || 'this port'}`
  if ((error as { name?: unknown }).name === 'TimeoutError') return 'no answer in time'
  return typeof cause?.message === 'string' ? cause.message : String(error)
}

/**
 * Make sure an OpenAI-compatible server answers at `baseURL` before the run: `GET /models`
 * (llama.cpp, vLLM, Ollama and LM Studio list their models there). Any HTTP answer counts as
 * reachable; a refused connection, a DNS failure or a timeout is a {@link DemoUsageError}, as is
 * a URL that is not http(s).
 */
export async function probeBaseUrl(
  baseURL: string,
  options: ProbeOptions = {},
): Promise<BaseUrlProbe> {
  let url: URL
  try {
    url = new URL(baseURL)
  } catch {
    throw new DemoUsageError('base_url', `--base-url must be an http(s) URL, got "${baseURL}"`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new DemoUsageError('base_url', `--base-url must be an http(s) URL, got "${baseURL}"`)
  }
  const base = baseURL.replace(/\/+$/, '')
  const doFetch = options.fetch ?? globalThis.fetch
  let response: Response
  try {
    response = await doFetch(`${base}/models`, {
      signal: AbortSignal.timeout(options.timeoutMs ?? 5000),
    })
  } catch (error) {
    throw new DemoUsageError(
      'base_url',
      `cannot reach --base-url ${base} (${reason(error, url)})`,
      {
        cause: error,
      },
    )
  }
  let models: string[] = []
  if (response.ok) {
    const body = (await response.json().catch(() => undefined)) as { data?: unknown } | undefined
    if (Array.isArray(body?.data)) {
      models = body.data
        .map((m: { id?: unknown }) => m?.id)
        .filter((id): id is string => typeof id === 'string')
    }
  } else {
    await response.body?.cancel()
  }
  return { baseURL: base, models }
}

/** A model id the server does not list is a {@link DemoUsageError} with the closest one it does. */
export function checkServedModel(id: string, probe: BaseUrlProbe): void {
  if (probe.models.length === 0 || probe.models.includes(id)) return
  throw new DemoUsageError(
    'model',
    `unknown model "${id}" at ${probe.baseURL}${suggestion(id, probe.models)}`,
  )
}
