import { extname, join } from 'node:path'
import {
  assertString,
  type ContextkitError,
  errnoCode,
  getModelInfo,
  invalidArgument,
  type Message,
  type ModelInfo,
  parseWith,
} from '@contextkit/core'
import { type PrefillConfig, type PrefillConfigInput, PrefillConfigSchema } from './config.js'
import { DynamicPrefillLoader } from './dynamic-prefill.js'
import { PrefillGenerateError, PrefillReadError } from './errors.js'
import { createPrefillCache, isMissing, type PrefillCache, statQuiet } from './file-cache.js'

/** One place a prefill may come from, relative to the workspace. */
export interface PrefillCandidate {
  /** Path relative to the workspace. */
  file: string
  /** `true` for a `.mjs` / `.js` module exporting `generate`. */
  dynamic: boolean
}

/** Where {@link loadPrefill} found (or failed to find) a prefill. */
export interface PrefillLoad {
  /** The trimmed prefill; `undefined` means off for this call. */
  text: string | undefined
  /** Absolute path of the file or module the text came from (or that failed). */
  source?: string
  /** `file`, `dynamic`, or `none` when nothing was found. */
  kind: 'file' | 'dynamic' | 'none'
  /** Why the feature turned itself off, when a file or module existed but could not be used. */
  warning?: ContextkitError
}

/** Options of {@link loadPrefill}, {@link readPrefillContent} and {@link hasPrefillEnabled}. */
export interface ReadPrefillOptions
  extends Pick<PrefillConfigInput, 'file' | 'perModel' | 'dynamic' | 'timeoutMs' | 'maxBytes'> {
  /**
   * The model (an id or a `ModelInfo`): picks the per-model file, e.g. `PREFILL.opus.md` for
   * `claude-opus-*`, and is passed to a dynamic `generate`. Default: none (base file only).
   */
  model?: string | ModelInfo
  /** Conversation passed to a dynamic `generate` as `history`. Default `[]`. */
  history?: readonly Message[]
  /** Passed to a dynamic `generate` in `context`. Default `{}`. */
  vars?: Readonly<Record<string, unknown>>
  /** Passed to a dynamic `generate` in `context`. */
  runId?: string
  /** Passed to a dynamic `generate` in `context`. */
  sessionId?: string
  /** Aborts a running dynamic `generate` (its `context.signal` fires). */
  signal?: AbortSignal
  /** File cache. Default: a fresh one per call (pass your own to reuse reads across calls). */
  cache?: PrefillCache
  /** Dynamic module loader. Default: a fresh one per call (pass your own to reuse it). */
  loader?: DynamicPrefillLoader
}

const ReadConfigSchema = PrefillConfigSchema.pick({
  file: true,
  perModel: true,
  dynamic: true,
  timeoutMs: true,
  maxBytes: true,
})
type ReadConfig = Pick<PrefillConfig, 'file' | 'perModel' | 'dynamic' | 'timeoutMs' | 'maxBytes'>

const SAFE_FAMILY = /^[a-z0-9][a-z0-9_-]{0,31}$/

/**
 * The model family used in per-model file names (`opus`, `sonnet`, `haiku`, …), or `undefined`
 * when the model is unknown. Ids are looked up in core's model table on every call (nothing is
 * cached), so a later `registerModel` is seen at once.
 */
export function modelFamily(model: string | ModelInfo | undefined): string | undefined {
  if (model === undefined) return undefined
  if (typeof model !== 'string' && (typeof model !== 'object' || model === null)) {
    invalidArgument('modelFamily', 'model', 'a model id or a ModelInfo')
  }
  const family =
    typeof model === 'string'
      ? getModelInfo(model).family.toLowerCase()
      : typeof model.family === 'string'
        ? model.family.toLowerCase()
        : 'unknown'
  return family !== 'unknown' && SAFE_FAMILY.test(family) ? family : undefined
}

/**
 * The files looked for, in order: the dynamic modules (`PREFILL.mjs`, `PREFILL.js`) when
 * `dynamic`, the per-model file (`PREFILL.<family>.md`) when `perModel` and the family is known,
 * then the base file. The first that exists decides; `file` may itself name a `.mjs`/`.js` module.
 */
export function prefillCandidates(
  file: string,
  family: string | undefined,
  options: { perModel?: boolean; dynamic?: boolean } = {},
): PrefillCandidate[] {
  assertString(file, 'prefillCandidates', 'file')
  assertString(family, 'prefillCandidates', 'family', true)
  if (typeof options !== 'object' || options === null) {
    invalidArgument('prefillCandidates', 'options', 'an object')
  }
  const perModel = options.perModel ?? true
  const dynamic = options.dynamic ?? true
  const ext = extname(file)
  const stem = ext === '' ? file : file.slice(0, -ext.length)
  if (ext === '.mjs' || ext === '.js') return dynamic ? [{ file, dynamic: true }] : []
  const out: PrefillCandidate[] = []
  if (dynamic)
    out.push({ file: `${stem}.mjs`, dynamic: true }, { file: `${stem}.js`, dynamic: true })
  if (perModel && family) out.push({ file: `${stem}.${family}${ext}`, dynamic: false })
  out.push({ file, dynamic: false })
  return out
}

async function runDynamic(
  path: string,
  workspace: string,
  config: ReadConfig,
  options: ReadPrefillOptions,
  loader: DynamicPrefillLoader,
): Promise<PrefillLoad | undefined> {
  const st = statQuiet(path)
  if (st === undefined || (st instanceof Error && isMissing(st))) return undefined
  if (st instanceof Error || !st.isFile()) {
    const reason =
      st instanceof Error ? (errnoCode(st) ?? 'EIO') : st.isDirectory() ? 'EISDIR' : 'not-a-file'
    const warning = new PrefillReadError(`Cannot load prefill module ${path} (${reason})`, {
      recoverable: true,
      cause: st instanceof Error ? st : undefined,
      details: { path, reason },
    })
    return { text: undefined, source: path, kind: 'dynamic', warning }
  }
  const model =
    typeof options.model === 'object' ? options.model : getModelInfo(options.model ?? 'unknown')
  const run = await loader.run(
    path,
    st,
    {
      model,
      history: options.history ?? [],
      context: {
        workspace,
        vars: options.vars ?? {},
        ...(options.runId === undefined ? {} : { runId: options.runId }),
        ...(options.sessionId === undefined ? {} : { sessionId: options.sessionId }),
      },
    },
    config.timeoutMs,
    options.signal,
  )
  if (run.kind === 'failed') {
    return { text: undefined, source: path, kind: 'dynamic', warning: run.error }
  }
  // The cap of a prefill file holds for generated text too: a larger one is refused whole.
  const size = Buffer.byteLength(run.text, 'utf8')
  if (size > config.maxBytes) {
    const warning = new PrefillGenerateError(
      `${path}: generate() returned ${size} bytes, more than maxBytes (${config.maxBytes}); prefill is off for this call`,
      {
        recoverable: true,
        details: { path, reason: 'too-large', size, maxBytes: config.maxBytes },
      },
    )
    return { text: undefined, source: path, kind: 'dynamic', warning }
  }
  return { text: run.text === '' ? undefined : run.text, source: path, kind: 'dynamic' }
}

/** @internal Load with an already-validated config. */
export async function loadWithConfig(
  workspace: string,
  config: ReadConfig,
  options: ReadPrefillOptions,
  cache: PrefillCache,
  loader: DynamicPrefillLoader,
): Promise<PrefillLoad> {
  if (workspace === '') return { text: undefined, kind: 'none' }
  const family = modelFamily(options.model)
  for (const candidate of prefillCandidates(config.file, family, config)) {
    const path = join(workspace, candidate.file)
    if (candidate.dynamic) {
      const found = await runDynamic(path, workspace, config, options, loader)
      if (found) return found
      continue
    }
    const read = await cache.read(path, config.maxBytes)
    if (read.kind === 'missing') continue
    if (read.kind === 'failed') {
      return { text: undefined, source: path, kind: 'file', warning: read.error }
    }
    return { text: read.text === '' ? undefined : read.text, source: path, kind: 'file' }
  }
  return { text: undefined, kind: 'none' }
}

/**
 * Find and read the prefill of a workspace, reporting where it came from. Never throws for file
 * or module problems: a missing file means off; any other failure is returned as `warning` with
 * `text: undefined`. Throws a `ValidationError` only for invalid options.
 */
export async function loadPrefill(
  workspace: string,
  options: ReadPrefillOptions = {},
): Promise<PrefillLoad> {
  assertString(workspace, 'loadPrefill', 'workspace')
  if (typeof options !== 'object' || options === null) {
    invalidArgument('loadPrefill', 'options', 'an object')
  }
  const config = parseWith(
    ReadConfigSchema,
    {
      file: options.file,
      perModel: options.perModel,
      dynamic: options.dynamic,
      timeoutMs: options.timeoutMs,
      maxBytes: options.maxBytes,
    },
    'prefill read options',
  )
  return loadWithConfig(
    workspace,
    config,
    options,
    options.cache ?? createPrefillCache(),
    options.loader ?? new DynamicPrefillLoader(),
  )
}

/**
 * The trimmed prefill of a workspace (`PREFILL.md`, a per-model file, or a dynamic module), or
 * `undefined` when there is none or it is empty. A missing file is silent; any other failure is
 * passed to `onWarning` (default: `process.emitWarning`) and the result is `undefined` — it never
 * fails the request.
 */
export async function readPrefillContent(
  workspace: string,
  options: ReadPrefillOptions & { onWarning?: (error: ContextkitError) => void } = {},
): Promise<string | undefined> {
  const load = await loadPrefill(workspace, options)
  if (load.warning) {
    if (options.onWarning) options.onWarning(load.warning)
    else process.emitWarning(load.warning.message, { code: load.warning.code })
  }
  return load.text
}

/** Whether the workspace currently has a non-empty prefill (same rules as {@link readPrefillContent}). */
export async function hasPrefillEnabled(
  workspace: string,
  options: ReadPrefillOptions & { onWarning?: (error: ContextkitError) => void } = {},
): Promise<boolean> {
  return (await readPrefillContent(workspace, options)) !== undefined
}
