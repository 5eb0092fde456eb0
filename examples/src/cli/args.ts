import { parseArgs } from 'node:util'
import { closestMatch } from './checks.js'
import { DemoUsageError } from './errors.js'

/** The kinds of server `--provider` names. */
export const DEMO_PROVIDER_KINDS = ['completions', 'openai'] as const
/** One of {@link DEMO_PROVIDER_KINDS}. */
export type DemoProviderKind = (typeof DEMO_PROVIDER_KINDS)[number]

/** What `pnpm demo` was asked to do. */
export interface DemoArgs {
  /** The user's message; `undefined` runs the built-in two-session walkthrough. */
  message?: string
  /** Read the message from this file (`--message-file`), or from standard input (`-`). */
  messageFile?: string
  /** Create a missing `--workspace` from the demo template (`--init`). */
  init: boolean
  workspace?: string
  session?: string
  model?: string
  baseUrl?: string
  /** How to talk to `--base-url`: `completions` (default: a prompt string) or `openai` (chat completions with native tools). */
  provider?: DemoProviderKind
  /** `files` (default), `postgres:<url>` or `pglite:<dir>`. */
  store?: string
  contextFile?: string
  /** `--allow-outside-context-file`: read `--context-file` outside the workspace, symlinks followed. */
  allowOutsideContextFile?: true
  /** `--approve ID` / `--deny ID [reason]`: finish the session's paused run with this decision. */
  decision?: DemoDecision
  json: boolean
  /** `--inspect`: serve the inspector while the run goes and after it, until Ctrl-C. */
  inspect?: true
  /** `--config FILE`: the runner's JSON config (`agents.defaults.prefill`, `agents.defaults.cacheTrace`). */
  config?: string
  /** `--workers N [--sessions K]`: run the sessions as jobs on N worker processes (needs a Postgres `--store`). */
  workers?: DemoWorkersArgs
  help: boolean
}

/** `--workers N` and `--sessions K`. */
export interface DemoWorkersArgs {
  /** Worker processes to start (1 to {@link MAX_DEMO_WORKERS}). */
  processes: number
  /** Sessions to queue (1 to {@link MAX_DEMO_SESSIONS}); default {@link DEFAULT_DEMO_SESSIONS}. */
  sessions: number
}

/** Most worker processes `--workers` starts (they share one machine). */
export const MAX_DEMO_WORKERS = 16
/** Most sessions `--sessions` queues. */
export const MAX_DEMO_SESSIONS = 100
/** Sessions queued by `--workers` when `--sessions` is not given. */
export const DEFAULT_DEMO_SESSIONS = 4
/** Flags that do not go with `--workers` (it starts its own sessions, text output, Anthropic API). */
const NOT_WITH_WORKERS = ['session', 'approve', 'deny', 'base-url', 'provider', 'json', 'config']

/** A decision on a call a paused run waits on (`--approve ID`, `--deny ID "reason"`). */
export type DemoDecision =
  | { toolCallId: string; approve: true }
  | { toolCallId: string; approve: false; reason?: string }

const OPTIONS = {
  workspace: { type: 'string' },
  session: { type: 'string' },
  model: { type: 'string' },
  'message-file': { type: 'string' },
  init: { type: 'boolean' },
  'base-url': { type: 'string' },
  provider: { type: 'string' },
  store: { type: 'string' },
  'context-file': { type: 'string' },
  'allow-outside-context-file': { type: 'boolean' },
  approve: { type: 'string' },
  deny: { type: 'string' },
  json: { type: 'boolean' },
  inspect: { type: 'boolean' },
  config: { type: 'string' },
  workers: { type: 'string' },
  sessions: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const

/** The flags `pnpm demo` knows, as typed. */
export const DEMO_FLAGS: readonly string[] = Object.keys(OPTIONS).map((name) => `--${name}`)

/** The usage text (`--help`). */
export const DEMO_USAGE = `Usage: pnpm demo [options] ["message"]

Runs the embedded agent runner on a workspace. Without a message: a two-session walkthrough.
Offline (no ANTHROPIC_API_KEY) the testkit emulator answers; with the key, Claude does.
The agent may write files (write_file), but each write waits for your yes: the run pauses, prints
the call and the commands to finish it, and exits with code 0 (a pause is not a failure).

Options:
  --workspace DIR      the agent's workspace (an empty one is filled from the demo template; default:
                       <tmp>/contextkit-demo for a message, a fresh temp dir for the walkthrough)
  --init               create a missing --workspace from the demo template
  --message-file FILE  read the message from FILE ("-" reads standard input); for long messages: a
                       command line over ~128 KB is refused by the shell or pnpm before the demo starts
  --session ID         continue session ID (default: a new session per run)
  --model ID           model id (default: ANTHROPIC_MODEL, else claude-haiku-4-5)
  --base-url URL       an OpenAI-compatible server (llama.cpp, vLLM, Ollama), e.g. http://127.0.0.1:8080/v1
  --provider KIND      how to talk to --base-url: completions (default; a ChatML prompt to /completions)
                       or openai (/chat/completions with native tools; OPENAI_API_KEY is sent when set)
  --store SPEC         files (default) | postgres:<connection url> | pglite:<dir>
  --context-file FILE  a large file to describe to the model, relative to the workspace (default:
                       data/orders.ndjson when present); read like preloaded files: no symlink out
  --allow-outside-context-file
                       let --context-file name a file outside the workspace
  --approve CALL_ID    finish the paused run of --session: run the waiting call CALL_ID
  --deny CALL_ID [REASON]
                       finish the paused run of --session without that call; the message
                       (optional) is the reason the model is told
  --json               print the events as JSON lines
  --inspect            serve the inspector (what the model saw on each step; approve from the page)
                       on 127.0.0.1 while the run goes and after it, until Ctrl-C
  --config FILE        a JSON config: agents.defaults.prefill ({ enabled, file, ephemeral, steps, … })
                       and agents.defaults.cacheTrace (false: no trace file)
  --workers N          run the sessions as jobs on a queue (@contextkit/worker) answered by N worker
                       processes; needs --store postgres:<url>; prints which worker answered each message
  --sessions K         with --workers: how many sessions to queue (default 4), each with the message, or
                       the walkthrough's two messages without one
  -h, --help           this text`

function unknownFlag(error: Error): DemoUsageError {
  const flag = /'(-[^']*)'/.exec(error.message)?.[1] ?? 'flag'
  const name = flag.split('=')[0] ?? flag
  const guess = closestMatch(name, DEMO_FLAGS)
  const hint = guess === undefined ? `known: ${DEMO_FLAGS.join(', ')}` : `did you mean ${guess}?`
  return new DemoUsageError('unknown_flag', `unknown flag ${name} (${hint})`, { cause: error })
}

function providerKind(value: string, baseUrl: string | undefined): DemoProviderKind {
  const kind = DEMO_PROVIDER_KINDS.find((k) => k === value)
  if (kind === undefined) {
    const guess = closestMatch(value, DEMO_PROVIDER_KINDS)
    const hint = guess === undefined ? '' : ` (did you mean ${guess}?)`
    throw new DemoUsageError(
      'bad_flag',
      `--provider must be ${DEMO_PROVIDER_KINDS.join(' or ')}, got "${value}"${hint}`,
    )
  }
  if (baseUrl === undefined) {
    throw new DemoUsageError(
      'base_url',
      `--provider ${kind} needs --base-url (the server's OpenAI-compatible URL, e.g. http://127.0.0.1:8080/v1)`,
    )
  }
  return kind
}

/** A whole number in `[min, max]` for `flag`, else a usage error. */
function count(flag: string, value: string, max: number): number {
  const n = Number(value)
  if (!/^\d+$/.test(value) || n < 1 || n > max) {
    throw new DemoUsageError(
      'bad_flag',
      `${flag} must be a whole number from 1 to ${max}, got "${value}"`,
    )
  }
  return n
}

/** `--workers N [--sessions K]`, checked: a Postgres `--store`, none of the flags it does not take. */
function workersOf(v: Record<string, string | boolean | undefined>): DemoWorkersArgs | undefined {
  if (v.workers === undefined) {
    if (v.sessions !== undefined) {
      throw new DemoUsageError(
        'bad_flag',
        '--sessions goes with --workers N (the sessions the workers run)',
      )
    }
    return undefined
  }
  const processes = count('--workers', String(v.workers), MAX_DEMO_WORKERS)
  const store = typeof v.store === 'string' ? v.store : ''
  if (!/^postgres(ql)?:/.test(store)) {
    throw new DemoUsageError(
      'bad_flag',
      '--workers needs --store postgres:<url>: the workers share the job queue and the sessions through a Postgres server',
    )
  }
  const other = NOT_WITH_WORKERS.find((flag) => v[flag] !== undefined)
  if (other !== undefined) {
    throw new DemoUsageError(
      'bad_flag',
      `--${other} does not go with --workers (it queues new sessions, answered offline or by Claude, and prints text)`,
    )
  }
  const sessions =
    v.sessions === undefined
      ? DEFAULT_DEMO_SESSIONS
      : count('--sessions', String(v.sessions), MAX_DEMO_SESSIONS)
  return { processes, sessions }
}

/** `--approve ID` / `--deny ID [reason]`, checked: one of them, with `--session`, no other message. */
function decisionOf(
  v: { approve?: string; deny?: string; session?: string; 'message-file'?: string },
  message: string,
): DemoDecision | undefined {
  if (v.approve === undefined && v.deny === undefined) return undefined
  const flag = v.approve !== undefined ? '--approve' : '--deny'
  if (v.approve !== undefined && v.deny !== undefined) {
    throw new DemoUsageError('bad_flag', 'give either --approve or --deny, not both')
  }
  if (v.session === undefined) {
    throw new DemoUsageError(
      'bad_flag',
      `${flag} needs --session ID (the session whose run waits; the paused run printed it)`,
    )
  }
  if (v['message-file'] !== undefined || (v.approve !== undefined && message !== '')) {
    throw new DemoUsageError(
      'bad_flag',
      `${flag} finishes a paused run and takes no new message${v.deny === undefined ? ' (only --deny takes a reason)' : ''}`,
    )
  }
  if (v.approve !== undefined) return { toolCallId: v.approve, approve: true }
  return {
    toolCallId: v.deny ?? '',
    approve: false,
    ...(message === '' ? {} : { reason: message }),
  }
}

/**
 * Parse `pnpm demo`'s arguments with `node:util`'s `parseArgs` (strict). The message is the
 * positionals joined with spaces, so quotes are optional. Throws a {@link DemoUsageError} for an
 * unknown flag (with the closest known one) or a flag without its value.
 */
export function parseDemoArgs(argv: readonly string[]): DemoArgs {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>
  try {
    parsed = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true })
  } catch (error) {
    const code = (error as { code?: unknown }).code
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') throw unknownFlag(error as Error)
    const text = (error as Error).message
    const flag = /'(--?[\w-]+)/.exec(text)?.[1]
    const problem = !flag
      ? `bad arguments: ${text.split('\n')[0]}`
      : text.includes('does not take an argument')
        ? `${flag} takes no value`
        : `${flag} needs a value`
    throw new DemoUsageError('bad_flag', problem, { cause: error })
  }
  const v = parsed.values
  const message = parsed.positionals.join(' ').trim()
  if (parsed.positionals.length > 0 && message === '') {
    throw new DemoUsageError(
      'bad_flag',
      'the message is empty: give a question, or no message at all for the walkthrough',
    )
  }
  const stdinMessage = parsed.positionals.length === 1 && parsed.positionals[0] === '-'
  if (v['message-file'] !== undefined && parsed.positionals.length > 0) {
    throw new DemoUsageError(
      'bad_flag',
      'give the message either on the command line or with --message-file, not both',
    )
  }
  for (const [name, value] of Object.entries(v)) {
    if (typeof value === 'string' && value.trim() === '') {
      throw new DemoUsageError('bad_flag', `--${name} needs a value`)
    }
  }
  const decision = decisionOf(v, message)
  const workers = workersOf(v)
  const messageFile = stdinMessage ? '-' : v['message-file']
  return {
    ...(message === '' || stdinMessage || decision ? {} : { message }),
    ...(decision ? { decision } : {}),
    ...(messageFile === undefined ? {} : { messageFile }),
    init: v.init === true,
    ...(v.workspace === undefined ? {} : { workspace: v.workspace }),
    ...(v.session === undefined ? {} : { session: v.session }),
    ...(v.model === undefined ? {} : { model: v.model }),
    ...(v['base-url'] === undefined ? {} : { baseUrl: v['base-url'] }),
    ...(v.provider === undefined ? {} : { provider: providerKind(v.provider, v['base-url']) }),
    ...(v.store === undefined ? {} : { store: v.store }),
    ...(v['context-file'] === undefined ? {} : { contextFile: v['context-file'] }),
    ...(v['allow-outside-context-file'] ? { allowOutsideContextFile: true as const } : {}),
    json: v.json === true,
    ...(v.inspect ? { inspect: true as const } : {}),
    ...(v.config === undefined ? {} : { config: v.config }),
    ...(workers === undefined ? {} : { workers }),
    help: v.help === true,
  }
}
