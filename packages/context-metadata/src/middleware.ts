import {
  assertString,
  ContextkitError,
  type ContextMiddleware,
  parseWith,
  recordWarning,
  type Section,
} from '@contextkit/core'
import { type FileStamp, sameFileStamp, stampIsRacy, statStamp } from '@contextkit/core/node'
import { analyzeContext } from './analyze-context.js'
import { type AnalyzeFileOptions, analyzeFile } from './analyze-file.js'
import { formatContextHint, type HintOptions } from './hint.js'
import { CONTEXT_METADATA_TRACE_STAGES, CONTEXT_METADATA_VARS_KEY } from './names.js'
import { ContextMetadataOptionsSchema } from './options.js'
import type { AnalyzeOptions, ContextMetadata } from './types.js'

/** Options of {@link contextMetadata}. */
export interface ContextMetadataOptions {
  /**
   * Path of a context file, analyzed with `analyzeFile` (streamed, never loaded whole). Takes
   * precedence over `content`. Re-analyzed only when its size or mtime changes. The hint then
   * says `[Context available in file <path>]`.
   */
  file?: string
  /**
   * The context text. Default: the string in `turn.vars[contextVar]`, if there is one. The
   * middleware does not know where the model can reach text given here, so the hint names no
   * place (`[Context available]`) unless `hint.contextRef` does.
   */
  content?: string
  /** File name shown as the source (and used for its extension). Default: `file`'s base name. */
  fileName?: string
  /**
   * The `turn.vars` key to read the context text from when neither `file` nor `content` is set;
   * the hint then says `[Context available in __vars.<contextVar>]`. Default `'context'`.
   */
  contextVar?: string
  /** Where the metadata object is stored in `turn.vars`. Default {@link CONTEXT_METADATA_VARS_KEY}. */
  metaVar?: string
  /** Id of the user section. Default `'context-metadata'`. */
  sectionId?: string
  /** Priority of the section in budget fitting. Default `60`. */
  priority?: number
  /** Cache class of the section. Default `'volatile'`. */
  cache?: 'stable' | 'volatile'
  /**
   * Hint rendering options (the `style` is decided by the middleware). `contextRef` overrides
   * where the hint says the context is; by default that follows the source (see above).
   */
  hint?: Omit<HintOptions, 'style'>
  /** Analysis options (sniffing limits, and `sniffBytes`/`chunkBytes` for files). */
  analyze?: AnalyzeOptions & Pick<AnalyzeFileOptions, 'sniffBytes' | 'chunkBytes'>
}

/** How a sandbox reaches `turn.vars[name]`: `__vars.context`, or `__vars["odd name"]`. */
export function varsRef(name: string): string {
  assertString(name, 'varsRef', 'name')
  return /^[A-Za-z_$][\w$]*$/.test(name) ? `__vars.${name}` : `__vars[${JSON.stringify(name)}]`
}

/**
 * Middleware that describes the context to the model. On `prepare` it analyzes the context
 * (a file, the `content` option, or the string in `turn.vars[contextVar]`), appends the hint as
 * a user section, and stores the metadata object in `turn.vars[metaVar]`. The hint names where
 * the context really is: the file's path, the vars key it was read from, or no place for
 * `content` (override with `hint.contextRef`). With a file name the section is the block form,
 * with the one-line forms (fields and sample, then counts only) as its `shorter` alternatives
 * for budget fitting; with no file name it is the one-line form. An unreadable file records a
 * `warning` in the trace and leaves the turn as it was; each successful analysis records a
 * `CONTEXT_METADATA_TRACE_STAGES.analyzed` event. Throws a `ValidationError` for invalid options.
 */
export function contextMetadata(options: ContextMetadataOptions = {}): ContextMiddleware {
  const o = parseWith(ContextMetadataOptionsSchema, options ?? {}, 'contextMetadata options')
  const contextVar = o.contextVar ?? 'context'
  const metaVar = o.metaVar ?? CONTEXT_METADATA_VARS_KEY
  const sectionId = o.sectionId ?? 'context-metadata'
  const priority = o.priority ?? 60
  const cache = o.cache ?? 'volatile'
  const { sniffBytes, chunkBytes, ...analyzeText } = o.analyze ?? {}
  const fileRead = {
    ...analyzeText,
    ...(sniffBytes !== undefined ? { sniffBytes } : {}),
    ...(chunkBytes !== undefined ? { chunkBytes } : {}),
    ...(o.fileName !== undefined ? { fileName: o.fileName } : {}),
  }
  // the last analysis: of a file while one synchronous `stat` shows the very file analyzed
  // (core's FileStamp: device, inode, size, both times), or of the same text
  let cachedFile: { path: string; stamp: FileStamp; meta: ContextMetadata } | undefined
  let cachedText: { text: string; meta: ContextMetadata } | undefined

  const fromFile = async (path: string, signal: AbortSignal | undefined) => {
    const startedMs = Date.now()
    const stamp = statStamp(path)
    const known = cachedFile
    if (stamp && known?.path === path && sameFileStamp(stamp, known.stamp)) return known.meta
    const meta = await analyzeFile(path, { ...fileRead, ...(signal ? { signal } : {}) })
    // a file changed within the racy window is analyzed again next run
    cachedFile = stamp && !stampIsRacy(stamp, startedMs) ? { path, stamp, meta } : undefined
    return meta
  }
  const fromText = (text: string) => {
    if (cachedText?.text === text) return cachedText.meta
    const meta = analyzeContext(text, o.fileName, analyzeText)
    cachedText = { text, meta }
    return meta
  }

  // the hint of the last analysis: an unchanged context gives the same texts on every run
  let rendered: { meta: ContextMetadata; contextRef: string | null; section: Section } | undefined
  const sectionOf = (meta: ContextMetadata, contextRef: string | null): Section => {
    if (rendered?.meta !== meta || rendered.contextRef !== contextRef) {
      const hint = { ...o.hint, contextRef }
      const text = formatContextHint(meta, { ...hint, style: 'auto' })
      const shorter = [
        formatContextHint(meta, { ...hint, style: 'inline' }),
        formatContextHint(meta, { ...hint, style: 'brief' }),
      ].filter((form, i, all) => form.length < text.length && all.indexOf(form) === i)
      const section: Section = { id: sectionId, text, priority, cache }
      if (shorter.length > 0) section.shorter = shorter
      rendered = { meta, contextRef, section }
    }
    const { shorter, ...section } = rendered.section
    return shorter ? { ...section, shorter: [...shorter] } : section
  }

  return {
    name: 'context-metadata',
    async prepare(turn, run) {
      const started = performance.now()
      let meta: ContextMetadata
      let ref: string | null
      try {
        if (o.file !== undefined) {
          meta = await fromFile(o.file, run.signal)
          ref = `file ${o.file}`
        } else {
          const text = o.content ?? turn.vars[contextVar]
          if (typeof text !== 'string') return turn
          meta = fromText(text)
          ref = o.content !== undefined ? null : varsRef(contextVar)
        }
      } catch (error) {
        // An unreadable file turns the feature off for this turn; anything else is a bug.
        if (!(ContextkitError.isInstance(error) && error.recoverable)) throw error
        recordWarning(run, 'context-metadata', error)
        return turn
      }
      const contextRef = o.hint?.contextRef !== undefined ? o.hint.contextRef : ref
      const section = sectionOf(meta, contextRef)
      run.trace.record(CONTEXT_METADATA_TRACE_STAGES.analyzed, {
        format: meta.format,
        chars: meta.chars,
        lines: meta.lines,
        recordCount: meta.recordCount,
        contextRef,
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
