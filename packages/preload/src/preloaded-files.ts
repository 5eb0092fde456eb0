import {
  assertString,
  defaultTokenCounter,
  escapeForPrompt,
  invalidArgument,
  type Omission,
  parseWith,
  type Section,
  type TokenCounter,
} from '@contextkit/core'
import * as z from 'zod'
import { FileTooLargeError, type PreloadRefusalError, type RootUnavailableError } from './errors.js'
import { fenceCode, inlineCode, languageFor } from './fence.js'
import { PRELOADED_FILES_HEADING } from './names.js'
import { checkRelativePath } from './path-checks.js'
import type { ReadCache } from './read-cache.js'
import {
  type FileText,
  type ReadResult,
  type ResolvedLimits,
  readResolved,
  resolveLimits,
  resolveRoot,
} from './read-within-root.js'
import type { FileReference, ReferenceSource } from './references.js'

/** Options of {@link buildPreloadedFiles}. */
export interface PreloadFilesOptions {
  /** Directory the references are relative to. Required. */
  root: string
  /** Files with more lines are left out (as an omission). Default `200`. */
  maxLines?: number
  /** Files with more bytes are left out (as an omission). Default `65_536`. */
  maxBytes?: number
  /** Token budget for all file sections together. Default `5000`. */
  budgetTokens?: number
  /** Counts tokens of each section. Default `defaultTokenCounter` from core. */
  counter?: TokenCounter
  /**
   * Lines longer than this are cut with a marker, and each file cut so is a `shortened`
   * omission. Default: no cut (the budget and `maxBytes` bound a file; a file that does not fit
   * is left out whole, so the model never edits a copy with parts missing).
   */
  maxLineLength?: number
  /** Deny list (see `DEFAULT_DENY_LIST`); `false` turns it off. Default `DEFAULT_DENY_LIST`. */
  deny?: readonly string[] | false
  /** Priority given to every file section. Default `30`. */
  priority?: number
  /** Files read at the same time. Default `8`. */
  concurrency?: number
}

/** A reference that did not become a section, and why. */
export interface SkippedFile {
  /** The referenced path, as given. */
  path: string
  /** Where the reference came from (the user's selection, an endpoint, the model). */
  source?: ReferenceSource
  /** A refusal code (`path_outside_root`, `file_too_large`, …) or `over_budget`. */
  reason: string
  /** The refusal, when the file could not or may not be read. */
  error?: PreloadRefusalError
}

/** Result of {@link buildPreloadedFiles}. */
export interface PreloadedFiles {
  /** One section per file, in reference order, id `preload:<path>`, cache `volatile`. */
  sections: Section[]
  /**
   * Files left out for size or budget (`dropped`), so the model can be told to read them itself,
   * and files whose long lines were cut (`shortened`, with `maxLineLength`). `tokensSaved` is the
   * section's token count, or `ceil(bytes / 4)` when it was too big to read, or
   * `ceil(characters cut / 4)` for a shortened file.
   */
  omissions: Omission[]
  /** Every reference that did not become a section (also those in `omissions`). */
  skipped: SkippedFile[]
  /** Tokens of all sections together (never above `budgetTokens`). */
  tokens: number
}

const RefsSchema = z.array(
  z.union([
    z.string(),
    z.object({
      path: z.string(),
      source: z.enum(['selection', 'endpoint', 'model']).optional(),
    }),
  ]),
)

/** Zod schema of {@link PreloadFilesOptions} without `root` and `counter`. @internal */
export const FileOptionsSchema = z.strictObject({
  maxLines: z.number().int().positive().optional(),
  maxBytes: z.number().int().positive().optional(),
  budgetTokens: z.number().min(0).optional(),
  maxLineLength: z.number().int().positive().optional(),
  deny: z.union([z.array(z.string()).readonly(), z.literal(false)]).optional(),
  priority: z.number().optional(),
  concurrency: z.number().int().positive().optional(),
})

const OptionsSchema = FileOptionsSchema.extend({
  root: z.string().min(1),
  counter: z
    .custom<TokenCounter>(
      (v) =>
        typeof v === 'object' &&
        v !== null &&
        typeof (v as { count?: unknown }).count === 'function',
      { message: 'expected a TokenCounter' },
    )
    .optional(),
})

/** The section id used for a preloaded file. */
export function preloadSectionId(filePath: string): string {
  assertString(filePath, 'preloadSectionId', 'filePath')
  return `preload:${filePath}`
}

/** Render one preloaded file: a heading with its path and line count, then a fenced block. */
export function renderPreloadedFile(filePath: string, text: string, lines: number): string {
  assertString(filePath, 'renderPreloadedFile', 'filePath')
  assertString(text, 'renderPreloadedFile', 'text')
  if (typeof lines !== 'number') invalidArgument('renderPreloadedFile', 'lines', 'a number', lines)
  const unit = lines === 1 ? 'line' : 'lines'
  // the name is shown as written, with anything that could break or reorder the line escaped
  return `#### ${inlineCode(escapeForPrompt(filePath))} (${lines} ${unit})\n${fenceCode(text, languageFor(filePath))}`
}

/**
 * Read referenced files (through `readWithinRoot`) into prompt sections, like the seed's
 * `_build_preloaded_files`: one section per file, in reference order, each fenced with a language
 * tag from its extension; the first starts with the `### Pre-loaded Files` heading
 * ({@link PRELOADED_FILES_HEADING}). Files over `maxLines`/`maxBytes` and files that do not fit the remaining
 * budget become omissions (the next, smaller files may still fit); unreadable or refused files are
 * listed in `skipped`. The sections' tokens never add up to more than `budgetTokens`.
 *
 * Throws a `ValidationError` only for malformed options or `refs` (not a list of paths or
 * `{ path }` references).
 */
export async function buildPreloadedFiles(
  refs: readonly (string | FileReference)[],
  options: PreloadFilesOptions,
): Promise<PreloadedFiles> {
  const opts = parseWith(OptionsSchema, options, 'buildPreloadedFiles options')
  parseWith(RefsSchema, refs, 'buildPreloadedFiles refs')
  return buildPreloadedChecked(refs, opts, preloadLimits(opts))
}

/** Check a list of references (a `ValidationError` when it is not one). @internal */
export function checkRefs(refs: unknown, what: string): void {
  parseWith(RefsSchema, refs, what)
}

/**
 * The read limits of preloaded files under checked `options`: lines are cut only when
 * `maxLineLength` is set. @internal
 */
export function preloadLimits(options: Omit<PreloadFilesOptions, 'root'>): ResolvedLimits {
  const limits = resolveLimits(
    {
      maxBytes: options.maxBytes ?? 65_536,
      ...(options.maxLineLength === undefined ? {} : { maxLineLength: options.maxLineLength }),
      ...(options.deny === undefined ? {} : { deny: options.deny }),
    },
    'buildPreloadedFiles options',
  )
  return options.maxLineLength === undefined
    ? { ...limits, maxLineLength: Number.POSITIVE_INFINITY }
    : limits
}

/**
 * {@link buildPreloadedFiles} with checked `refs` and `opts` and `limits` from
 * {@link preloadLimits}: the root is resolved once, and with a `cache` an unchanged file is
 * neither read, rendered nor counted again. @internal
 */
export async function buildPreloadedChecked(
  refs: readonly (string | FileReference)[],
  opts: PreloadFilesOptions,
  limits: ResolvedLimits,
  cache?: ReadCache,
  resolved?: Promise<string | RootUnavailableError>,
): Promise<PreloadedFiles> {
  const counter = opts.counter ?? defaultTokenCounter
  const maxLines = opts.maxLines ?? 200
  const budget = opts.budgetTokens ?? 5000
  const priority = opts.priority ?? 30
  const list = dedupe(refs)
  const out: PreloadedFiles = { sections: [], omissions: [], skipped: [], tokens: 0 }
  const take = { counter, maxLines, budget, priority, cache }
  // The smallest section a ref can become: its heading and an empty fence. Sections only add
  // tokens, so a ref whose smallest section no longer fits is never opened (budget 0: none is).
  const smallest = (path: string) => counter.count(renderPreloadedFile(path, '', 1))
  const root = list.length > 0 ? await (resolved ?? resolveRoot(opts.root)) : opts.root
  const reads: (Promise<ReadResult> | string)[] = []
  const start = (j: number) => {
    const ref = list[j]
    if (ref === undefined || reads[j] !== undefined) return
    const checked = checkRelativePath(ref.path)
    const path = 'segments' in checked ? checked.path : null
    reads[j] =
      path !== null && out.tokens + smallest(path) > budget
        ? path
        : readResolved(root, ref.path, limits, cache)
  }
  const concurrency = opts.concurrency ?? 8
  for (let i = 0; i < list.length; i++) {
    for (let j = i; j < i + concurrency; j++) start(j)
    const ref = list[i]!
    const read = reads[i]!
    if (typeof read === 'string') {
      // not opened: even its empty section would not fit (at least that much is saved)
      skipRef(out, ref, { reason: 'over_budget' })
      out.omissions.push({
        id: preloadSectionId(read),
        reason: 'dropped',
        tokensSaved: smallest(read),
      })
      continue
    }
    addRead(out, ref, await read, take)
  }
  return out
}

type Ref = { path: string; source?: ReferenceSource }

function skipRef(out: PreloadedFiles, ref: Ref, entry: Partial<SkippedFile>): void {
  out.skipped.push({
    path: ref.path,
    ...(ref.source ? { source: ref.source } : {}),
    reason: entry.reason ?? 'unknown',
    ...(entry.error ? { error: entry.error } : {}),
  })
}

/** Add one read file to `out`: a section when it fits, else an omission or a skipped entry. */
function addRead(
  out: PreloadedFiles,
  ref: Ref,
  result: ReadResult,
  take: {
    counter: TokenCounter
    maxLines: number
    budget: number
    priority: number
    cache: ReadCache | undefined
  },
): void {
  if (!result.ok) {
    skipRef(out, ref, { reason: result.error.code, error: result.error })
    if (FileTooLargeError.isInstance(result.error)) {
      const size = Number(result.error.details.size) || 0
      out.omissions.push({
        id: preloadSectionId(ref.path),
        reason: 'dropped',
        tokensSaved: Math.ceil(size / 4),
      })
    }
    return
  }
  const { file } = result
  const first = out.sections.length === 0
  const { text, tokens } = first
    ? headed(rendered(file, take.counter, take.cache).text, take.counter)
    : rendered(file, take.counter, take.cache)
  const id = preloadSectionId(file.path)
  if (file.lines > take.maxLines) {
    const error = new FileTooLargeError(`"${file.path}" has more than ${take.maxLines} lines`, {
      recoverable: true,
      details: { path: file.path, lines: file.lines, maxLines: take.maxLines },
    })
    skipRef(out, ref, { reason: error.code, error })
    out.omissions.push({ id, reason: 'dropped', tokensSaved: tokens })
    return
  }
  if (out.tokens + tokens > take.budget) {
    skipRef(out, ref, { reason: 'over_budget' })
    out.omissions.push({ id, reason: 'dropped', tokensSaved: tokens })
    return
  }
  out.tokens += tokens
  out.sections.push({ id, text, priority: take.priority, cache: 'volatile' })
  if (file.cutLines > 0) {
    // the section is the file with parts missing: the model is told, like any shortening
    out.omissions.push({ id, reason: 'shortened', tokensSaved: Math.ceil(file.cutChars / 4) })
  }
}

/**
 * The first file section: the heading, then the file. All file sections share one priority and
 * budget fitting drops the later of equal sections first, so the heading goes only with the
 * last file.
 */
function headed(text: string, counter: TokenCounter): { text: string; tokens: number } {
  const withHeading = `${PRELOADED_FILES_HEADING}\n\n${text}`
  return { text: withHeading, tokens: counter.count(withHeading) }
}

/** A file's section text and its tokens; once per unchanged file and counter with a cache. */
function rendered(
  file: FileText,
  counter: TokenCounter,
  cache: ReadCache | undefined,
): { text: string; tokens: number } {
  const text = cache
    ? cache.derive(file, 'preload', () => renderPreloadedFile(file.path, file.text, file.lines))
    : renderPreloadedFile(file.path, file.text, file.lines)
  if (!cache) return { text, tokens: counter.count(text) }
  const counts = cache.derive(file, 'preload-tokens', () => new WeakMap<TokenCounter, number>())
  let tokens = counts.get(counter)
  if (tokens === undefined) {
    tokens = counter.count(text)
    counts.set(counter, tokens)
  }
  return { text, tokens }
}

/** Refs in order, each normalized path once (invalid paths are kept as given, to be refused). */
function dedupe(
  refs: readonly (string | FileReference)[],
): { path: string; source?: ReferenceSource }[] {
  const seen = new Set<string>()
  const out: { path: string; source?: ReferenceSource }[] = []
  for (const r of refs) {
    const ref = typeof r === 'string' ? { path: r } : r
    const checked = checkRelativePath(ref.path)
    const key = 'segments' in checked ? checked.path : ref.path
    if (seen.has(key)) continue
    seen.add(key)
    out.push(ref)
  }
  return out
}
