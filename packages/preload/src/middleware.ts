import {
  ConfigurationError,
  type ContextMiddleware,
  createTokenCounter,
  insertAfterStable,
  parseWith,
  type RunInfo,
  recordWarning,
  type TokenCounter,
  type TurnContext,
} from '@contextkit/core'
import * as z from 'zod'
import {
  type BootstrapOptions,
  BootstrapOptionsSchema,
  bootstrapLimits,
  DEFAULT_BOOTSTRAP_FILES,
  loadBootstrapChecked,
  type TruncatedFile,
} from './bootstrap.js'
import { RootUnavailableError } from './errors.js'
import { PRELOAD_TRACE_STAGES, PRELOAD_VARS_KEY } from './names.js'
import {
  buildPreloadedChecked,
  checkRefs,
  FileOptionsSchema,
  type PreloadFilesOptions,
  preloadLimits,
  preloadSectionId,
} from './preloaded-files.js'
import { ReadCache } from './read-cache.js'
import { resolveRoot } from './read-within-root.js'
import { collectReferences, type FileReference } from './references.js'

/** Where the middleware finds the files to preload for a turn. */
export type ReferenceSourceOption =
  | readonly (string | FileReference)[]
  | ((
      turn: TurnContext,
      run: RunInfo,
    ) => readonly (string | FileReference)[] | Promise<readonly (string | FileReference)[]>)

/** Options of {@link preload}. */
export interface PreloadOptions extends Omit<PreloadFilesOptions, 'root' | 'counter'> {
  /** Directory files are read from. Default: `run.workspace`. */
  root?: string
  /**
   * Files to preload: a list, or a function of the turn. Default:
   * `collectReferences(turn.vars.contexts, turn.vars.backendMap)` (the seed's selection + backend map).
   */
  references?: ReferenceSourceOption
  /** Token counter. Default: `createTokenCounter({ model: turn.model })`. */
  counter?: TokenCounter
  /**
   * Bootstrap files to load from the workspace into system sections: `true` for
   * `DEFAULT_BOOTSTRAP_FILES`, a list of names, or `false` for none. Default `true`.
   */
  bootstrap?: boolean | readonly string[]
  /** Options of `loadBootstrapFiles`. Default: its defaults. */
  bootstrapOptions?: BootstrapOptions
  /** Workspace for bootstrap files. Default: `run.workspace`, else `root`. */
  workspace?: string
}

const isFunction = (v: unknown): boolean => typeof v === 'function'

const ReferenceSchema = z.union([
  z.string(),
  z.object({ path: z.string(), source: z.enum(['selection', 'endpoint', 'model']).optional() }),
])

const PreloadOptionsSchema = FileOptionsSchema.extend({
  root: z.string().min(1).optional(),
  references: z
    .union([
      z.array(ReferenceSchema).readonly(),
      z.custom<ReferenceSourceOption>(isFunction, { message: 'expected a list or a function' }),
    ])
    .optional(),
  counter: z
    .custom<TokenCounter>(
      (v) => typeof v === 'object' && v !== null && isFunction((v as { count?: unknown }).count),
      { message: 'expected a TokenCounter' },
    )
    .optional(),
  bootstrap: z.union([z.boolean(), z.array(z.string()).readonly()]).optional(),
  bootstrapOptions: BootstrapOptionsSchema.optional(),
  workspace: z.string().min(1).optional(),
})

/** What one {@link preload} middleware keeps across its runs: its checked options and cache. */
interface Preloader {
  options: PreloadOptions
  bootOptions: BootstrapOptions
  bootLimits: ReturnType<typeof bootstrapLimits>
  fileLimits: ReturnType<typeof preloadLimits>
  /** Files unchanged since the last run, with their rendered sections and token counts. */
  cache: ReadCache
  /** The token counter of a model (the option's, or one per model made once). */
  counterFor: (model: TurnContext['model']) => TokenCounter
}

/** A directory's real path, resolved once per run (the workspace is usually the root too). */
type RealRoot = (dir: string) => Promise<string | RootUnavailableError>

/** Check the options once; each run reuses the limits. */
function createPreloader(options: PreloadOptions): Preloader {
  parseWith(PreloadOptionsSchema, options, 'preload options')
  const bootOptions = options.bootstrapOptions ?? {}
  const counters = new Map<string, TokenCounter>()
  const counterFor = (model: TurnContext['model']): TokenCounter => {
    if (options.counter) return options.counter
    const key = `${model.id}\u0000${model.tokenizerFactor}`
    let counter = counters.get(key)
    if (counter === undefined) {
      counter = createTokenCounter({ model })
      counters.set(key, counter)
    }
    return counter
  }
  return {
    options,
    bootOptions,
    bootLimits: bootstrapLimits(bootOptions),
    fileLimits: preloadLimits(options),
    cache: new ReadCache(),
    counterFor,
  }
}

/** A {@link RealRoot} for one run. */
function realRootsOfRun(): RealRoot {
  const roots = new Map<string, Promise<string | RootUnavailableError>>()
  return (dir) => {
    let found = roots.get(dir)
    if (found === undefined) {
      found = resolveRoot(dir)
      roots.set(dir, found)
    }
    return found
  }
}

/** The bootstrap file names the `bootstrap` option asks for. */
function bootstrapNamesOf(option: PreloadOptions['bootstrap']): readonly string[] {
  if (option === false) return []
  return option === true || option === undefined ? DEFAULT_BOOTSTRAP_FILES : option
}

/**
 * What was skipped, for the trace event; a root that could not be read is also a warning (from
 * `source`), once.
 */
function skippedOf(
  run: RunInfo,
  source: string,
  skipped: readonly { path: string; reason: string; error?: unknown }[],
): { path: string; reason: string }[] {
  const rootError = skipped.find((s) => RootUnavailableError.isInstance(s.error))
  if (rootError) recordWarning(run, source, rootError.error)
  return skipped.map((s) => ({ path: s.path, reason: s.reason }))
}

/** The data of one `preload:loaded` trace event (see `PRELOAD_TRACE_STAGES`). */
type LoadedEvent = {
  /** The bootstrap files: loaded, missing, cut to their limit, skipped (with a refusal code). */
  bootstrap?: {
    loaded: string[]
    missing: string[]
    truncated: TruncatedFile[]
    skipped: { path: string; reason: string }[]
  }
  /** The referenced files: the sections loaded, their tokens, the files skipped. */
  files?: { loaded: string[]; tokens: number; skipped: { path: string; reason: string }[] }
}

/** Step 2: the workspace's bootstrap files as stable system sections. */
async function addBootstrap(
  p: Preloader,
  turn: TurnContext,
  run: RunInfo,
  workspace: string,
  realRoot: RealRoot,
  event: LoadedEvent,
): Promise<TurnContext> {
  const names = bootstrapNamesOf(p.options.bootstrap)
  if (names.length === 0) return turn
  const boot = await loadBootstrapChecked(
    workspace,
    names,
    p.bootLimits,
    p.bootOptions,
    p.cache,
    realRoot(workspace),
  )
  const skipped = skippedOf(run, 'preload.bootstrap', boot.skipped)
  event.bootstrap = {
    loaded: boot.loaded,
    missing: boot.missing,
    truncated: boot.truncated,
    skipped,
  }
  if (boot.sections.length === 0) return turn
  return { ...turn, system: insertAfterStable(turn.system, boot.sections) }
}

/** The files to preload this turn, or `undefined` when a `references` function failed (a warning). */
async function referencesOf(
  p: Preloader,
  turn: TurnContext,
  run: RunInfo,
): Promise<readonly (string | FileReference)[] | undefined> {
  const source = p.options.references
  let refs: readonly (string | FileReference)[]
  try {
    refs =
      source === undefined
        ? collectReferences(turn.vars.contexts, turn.vars.backendMap)
        : typeof source === 'function'
          ? await source(turn, run)
          : source
  } catch (error) {
    recordWarning(run, 'preload.references', error)
    return undefined
  }
  // what a `references` function returned is the caller's code: checked on every run (a list
  // option was checked once, with the options)
  if (typeof source === 'function') checkRefs(refs, 'buildPreloadedFiles refs')
  return refs
}

/** Step 4: the referenced files as user sections; what did not fit goes to `turn.omitted`. */
async function addFiles(
  p: Preloader,
  turn: TurnContext,
  run: RunInfo,
  refs: readonly (string | FileReference)[],
  root: string,
  realRoot: RealRoot,
  event: LoadedEvent,
): Promise<TurnContext> {
  const { references: _s, bootstrap: _b, bootstrapOptions: _o, workspace: _w, ...rest } = p.options
  const fileOptions = { ...rest, root, counter: p.counterFor(turn.model) }
  const files = await buildPreloadedChecked(
    refs,
    fileOptions,
    p.fileLimits,
    p.cache,
    realRoot(root),
  )
  const skipped = skippedOf(run, 'preload.files', files.skipped)
  event.files = { loaded: files.sections.map((s) => s.id), tokens: files.tokens, skipped }
  if (files.sections.length === 0 && files.omissions.length === 0) return turn
  return {
    ...turn,
    userSections: [...turn.userSections, ...files.sections],
    omitted: [...turn.omitted, ...files.omissions],
    vars: {
      ...turn.vars,
      [PRELOAD_VARS_KEY]: files.sections.map((s) => s.id.slice(preloadSectionId('').length)),
    },
  }
}

/** The `prepare` hook: bootstrap files, then referenced files, then one `preload:loaded` event. */
async function prepareTurn(p: Preloader, turn: TurnContext, run: RunInfo): Promise<TurnContext> {
  const root = p.options.root ?? run.workspace
  const workspace = p.options.workspace ?? run.workspace ?? root
  const realRoot = realRootsOfRun()
  const event: LoadedEvent = {}
  let next = turn
  if (workspace !== undefined) {
    next = await addBootstrap(p, next, run, workspace, realRoot, event)
  }
  if (root === undefined) {
    const why = 'preload has no root: set options.root or run.workspace'
    recordWarning(run, 'preload', new ConfigurationError(why, { recoverable: true }))
  } else {
    const refs = await referencesOf(p, turn, run)
    if (refs !== undefined) next = await addFiles(p, next, run, refs, root, realRoot, event)
  }
  run.trace.record(PRELOAD_TRACE_STAGES.loaded, event)
  return next
}

/**
 * Middleware that brings files into the turn (architecture steps 2 and 4):
 * - workspace bootstrap files become "Project Context" **system** sections (`cache: 'stable'`,
 *   placed after the last stable section with core's `insertAfterStable`), since they describe
 *   the project, not the turn;
 * - referenced files become **user** sections (`userSections`), and files left out for size or
 *   budget are appended to `turn.omitted` so the model can be told.
 *
 * A `preload:loaded` trace event lists what was loaded, missing and skipped (with refusal
 * codes). When there is no root, the root cannot be read, or `references` fails, a warning is
 * recorded and that part is skipped; the turn goes on. Returns a new turn; never mutates its
 * input. Throws a `ValidationError` for invalid options.
 */
export function preload(options: PreloadOptions = {}): ContextMiddleware {
  const p = createPreloader(options)
  return { name: 'preload', prepare: (turn, run) => prepareTurn(p, turn, run) }
}
