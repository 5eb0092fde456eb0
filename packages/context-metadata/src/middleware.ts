import { stat } from 'node:fs/promises'
import {
  ContextkitError,
  type ContextMiddleware,
  recordWarning,
  type Section,
} from '@contextkit/core'
import { analyzeContext } from './analyze-context.js'
import { type AnalyzeFileOptions, analyzeFile } from './analyze-file.js'
import { formatContextHint, type HintOptions } from './hint.js'
import type { AnalyzeOptions, ContextMetadata } from './types.js'

/** Options of {@link contextMetadata}. */
export interface ContextMetadataOptions {
  /**
   * Path of a context file, analyzed with `analyzeFile` (streamed, never loaded whole). Takes
   * precedence over `content`. Re-analyzed only when its size or mtime changes.
   */
  file?: string
  /**
   * The context text. Default: the string in `turn.vars[contextVar]`, if there is one.
   */
  content?: string
  /** File name shown as the source (and used for its extension). Default: `file`'s base name. */
  fileName?: string
  /** Where to read the context text from when neither `file` nor `content` is set. Default `'context'`. */
  contextVar?: string
  /** Where the metadata object is stored in `turn.vars`. Default `'contextMeta'`. */
  metaVar?: string
  /** Id of the user section. Default `'context-metadata'`. */
  sectionId?: string
  /** Priority of the section in budget fitting. Default `60`. */
  priority?: number
  /** Cache class of the section. Default `'volatile'`. */
  cache?: 'stable' | 'volatile'
  /** Hint rendering options (the `style` is decided by the middleware). */
  hint?: Omit<HintOptions, 'style'>
  /** Analysis options (sniffing limits, and `sniffBytes`/`chunkBytes` for files). */
  analyze?: AnalyzeOptions & Pick<AnalyzeFileOptions, 'sniffBytes' | 'chunkBytes'>
}

/**
 * Middleware that describes the context to the model. On `prepare` it analyzes the context
 * (a file or a string), appends the hint as a user section, and stores the metadata object in
 * `turn.vars.contextMeta`. With a file name the section is the block form, with the one-line
 * form as its `shorter` alternative for budget fitting; with no file name it is the one-line
 * inline form. An unreadable file records a `warning` in the trace and leaves the turn as it
 * was; each successful analysis records a `context-metadata` trace event.
 */
export function contextMetadata(options: ContextMetadataOptions = {}): ContextMiddleware {
  const contextVar = options.contextVar ?? 'context'
  const metaVar = options.metaVar ?? 'contextMeta'
  const sectionId = options.sectionId ?? 'context-metadata'
  const priority = options.priority ?? 60
  const cache = options.cache ?? 'volatile'
  let cached: { key: unknown; meta: ContextMetadata } | undefined

  const fromFile = async (path: string, signal: AbortSignal | undefined) => {
    const s = await stat(path).catch(() => undefined)
    const key = s ? `${path}\u0000${s.size}\u0000${s.mtimeMs}` : undefined
    if (key !== undefined && cached?.key === key) return cached.meta
    const meta = await analyzeFile(path, {
      ...options.analyze,
      ...(options.fileName !== undefined ? { fileName: options.fileName } : {}),
      ...(signal ? { signal } : {}),
    })
    if (key !== undefined) cached = { key, meta }
    return meta
  }
  const fromText = (text: string) => {
    if (cached?.key === text) return cached.meta
    const { sniffBytes: _s, chunkBytes: _c, ...analyze } = options.analyze ?? {}
    const meta = analyzeContext(text, options.fileName, analyze)
    cached = { key: text, meta }
    return meta
  }

  return {
    name: 'context-metadata',
    async prepare(turn, run) {
      const started = performance.now()
      let meta: ContextMetadata
      try {
        if (options.file !== undefined) meta = await fromFile(options.file, run.signal)
        else {
          const text = options.content ?? turn.vars[contextVar]
          if (typeof text !== 'string') return turn
          meta = fromText(text)
        }
      } catch (error) {
        // An unreadable file turns the feature off for this turn; anything else is a bug.
        if (!(ContextkitError.isInstance(error) && error.recoverable)) throw error
        recordWarning(run, 'context-metadata', error)
        return turn
      }
      const block = formatContextHint(meta, { ...options.hint, style: 'auto' })
      const inline = formatContextHint(meta, { ...options.hint, style: 'inline' })
      const section: Section = { id: sectionId, text: block, priority, cache }
      if (block !== inline) section.shorter = [inline]
      run.trace.record('context-metadata', {
        format: meta.format,
        chars: meta.chars,
        lines: meta.lines,
        recordCount: meta.recordCount,
        ms: Math.round((performance.now() - started) * 100) / 100,
      })
      return {
        ...turn,
        userSections: [...turn.userSections.filter((s) => s.id !== sectionId), section],
        vars: { ...turn.vars, [metaVar]: meta },
      }
    },
  }
}
