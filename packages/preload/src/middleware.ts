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
  parseWith(PreloadOptionsSchema, options, 'preload options')
  // checked once here; each run reuses the limits, and files unchanged since the last run are
  // taken from the cache (one lstat each) with their rendered sections and token counts
  const bootOptions = options.bootstrapOptions ?? {}
  const bootLimits = bootstrapLimits(bootOptions)
  const fileLimits = preloadLimits(options)
  const cache = new ReadCache()
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
    name: 'preload',
    async prepare(turn, run) {
      const root = options.root ?? run.workspace
      const workspace = options.workspace ?? run.workspace ?? root
      let next: TurnContext = turn
      const event: Record<string, unknown> = {}
      // each directory resolved once per run (the workspace is usually the root too)
      const roots = new Map<string, Promise<string | RootUnavailableError>>()
      const realRoot = (dir: string) => {
        let found = roots.get(dir)
        if (found === undefined) {
          found = resolveRoot(dir)
          roots.set(dir, found)
        }
        return found
      }

      const bootstrapNames =
        options.bootstrap === false
          ? []
          : options.bootstrap === true || options.bootstrap === undefined
            ? DEFAULT_BOOTSTRAP_FILES
            : options.bootstrap
      if (bootstrapNames.length > 0 && workspace !== undefined) {
        const boot = await loadBootstrapChecked(
          workspace,
          bootstrapNames,
          bootLimits,
          bootOptions,
          cache,
          realRoot(workspace),
        )
        const rootError = boot.skipped.find((s) => RootUnavailableError.isInstance(s.error))
        if (rootError) recordWarning(run, 'preload.bootstrap', rootError.error)
        if (boot.sections.length > 0) {
          next = { ...next, system: insertAfterStable(next.system, boot.sections) }
        }
        event.bootstrap = {
          loaded: boot.loaded,
          missing: boot.missing,
          truncated: boot.truncated,
          skipped: boot.skipped.map((s) => ({ path: s.path, reason: s.reason })),
        }
      }

      if (root === undefined) {
        recordWarning(
          run,
          'preload',
          new ConfigurationError('preload has no root: set options.root or run.workspace', {
            recoverable: true,
          }),
        )
        run.trace.record(PRELOAD_TRACE_STAGES.loaded, event)
        return next
      }
      let refs: readonly (string | FileReference)[]
      try {
        const source = options.references
        refs =
          source === undefined
            ? collectReferences(turn.vars.contexts, turn.vars.backendMap)
            : typeof source === 'function'
              ? await source(turn, run)
              : source
      } catch (error) {
        recordWarning(run, 'preload.references', error)
        run.trace.record(PRELOAD_TRACE_STAGES.loaded, event)
        return next
      }
      // what a `references` function returned is the caller's code: checked on every run (a
      // list option was checked once, above)
      if (typeof options.references === 'function') checkRefs(refs, 'buildPreloadedFiles refs')
      const {
        root: _r,
        references: _s,
        bootstrap: _b,
        bootstrapOptions: _o,
        workspace: _w,
        ...fileOpts
      } = options
      const files = await buildPreloadedChecked(
        refs,
        { ...fileOpts, root, counter: counterFor(turn.model) },
        fileLimits,
        cache,
        realRoot(root),
      )
      const rootError = files.skipped.find((s) => RootUnavailableError.isInstance(s.error))
      if (rootError) recordWarning(run, 'preload.files', rootError.error)
      event.files = {
        loaded: files.sections.map((s) => s.id),
        tokens: files.tokens,
        skipped: files.skipped.map((s) => ({ path: s.path, reason: s.reason })),
      }
      run.trace.record(PRELOAD_TRACE_STAGES.loaded, event)
      if (files.sections.length === 0 && files.omissions.length === 0) return next
      return {
        ...next,
        userSections: [...next.userSections, ...files.sections],
        omitted: [...next.omitted, ...files.omissions],
        vars: {
          ...next.vars,
          [PRELOAD_VARS_KEY]: files.sections.map((s) => s.id.slice(preloadSectionId('').length)),
        },
      }
    },
  }
}
