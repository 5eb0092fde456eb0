import { readdir } from 'node:fs/promises'
import {
  assertFiniteNumber,
  assertOptions,
  assertString,
  escapeForPrompt,
  parseWith,
  type Section,
} from '@contextkit/core'
import * as z from 'zod'
import { FileNotFoundError, type RootUnavailableError } from './errors.js'
import { fenceCode } from './fence.js'
import type { SkippedFile } from './preloaded-files.js'
import type { ReadCache } from './read-cache.js'
import {
  type ResolvedLimits,
  readResolved,
  resolveLimits,
  resolveRoot,
} from './read-within-root.js'
import { safeCut } from './text-lines.js'

/** The workspace files OpenClaw loads into "Project Context", in this order. */
export const DEFAULT_BOOTSTRAP_FILES: readonly string[] = Object.freeze([
  'AGENTS.md',
  'SOUL.md',
  'TOOLS.md',
  'IDENTITY.md',
  'USER.md',
  'HEARTBEAT.md',
  'BOOTSTRAP.md',
  'MEMORY.md',
])

/** Heading that opens the first bootstrap section. */
export const PROJECT_CONTEXT_HEADING = '# Project Context'

/** Options of {@link loadBootstrapFiles}. */
export interface BootstrapOptions {
  /** Longest text kept per file, in characters; longer files are cut head/tail. Default `20_000`. */
  maxChars?: number
  /** Share of `maxChars` kept from the start of a cut file. Default `0.7`. */
  headRatio?: number
  /** Share of `maxChars` kept from the end of a cut file. Default `0.2`. */
  tailRatio?: number
  /** Files with more bytes are refused (reported in `skipped`). Default `2_097_152`. */
  maxBytes?: number
  /** Priority of every bootstrap section. Default `80`. */
  priority?: number
  /** Deny list (see `DEFAULT_DENY_LIST`); `false` turns it off. Default `DEFAULT_DENY_LIST`. */
  deny?: readonly string[] | false
}

/** A bootstrap file that was cut to fit `maxChars`. */
export interface TruncatedFile {
  /** The file's name, relative to the workspace. */
  name: string
  /** Characters in the file. */
  chars: number
  /** Characters kept (head + tail, without the marker). */
  keptChars: number
}

/** Result of {@link loadBootstrapFiles}. */
export interface BootstrapFiles {
  /** One section per loaded file, id `bootstrap:<name>`, cache `stable`, in `names` order. */
  sections: Section[]
  /** Names loaded (possibly cut). */
  loaded: string[]
  /** Names with no file in the workspace. */
  missing: string[]
  /** Files present but refused (deny list, binary, invalid UTF-8, too large…) or empty. */
  skipped: SkippedFile[]
  /** Files that were cut head/tail. */
  truncated: TruncatedFile[]
}

/** Zod schema of {@link BootstrapOptions}. @internal */
export const BootstrapOptionsSchema = z
  .strictObject({
    maxChars: z.number().int().min(100).optional(),
    headRatio: z.number().min(0).max(1).optional(),
    tailRatio: z.number().min(0).max(1).optional(),
    maxBytes: z.number().int().positive().optional(),
    priority: z.number().optional(),
    deny: z.union([z.array(z.string()).readonly(), z.literal(false)]).optional(),
  })
  .refine((o) => (o.headRatio ?? 0.7) + (o.tailRatio ?? 0.2) <= 1, {
    message: 'headRatio + tailRatio must be at most 1',
  })

const NamesSchema = z.array(z.string())

/**
 * Cut `text` to about `maxChars`: keep the first `headRatio` share and the last `tailRatio` share
 * (defaults 0.7 and 0.2) and put a marker between them saying how much of `name` was cut.
 * Returns `text` unchanged when it fits. Never splits a surrogate pair.
 */
export function truncateHeadTail(
  text: string,
  maxChars: number,
  options: { headRatio?: number; tailRatio?: number; name?: string } = {},
): { text: string; keptChars: number; cut: boolean } {
  assertString(text, 'truncateHeadTail', 'text')
  assertFiniteNumber(maxChars, 'truncateHeadTail', 'maxChars')
  assertOptions(options, 'truncateHeadTail')
  if (text.length <= maxChars) return { text, keptChars: text.length, cut: false }
  const headEnd = safeCut(text, Math.floor(maxChars * (options.headRatio ?? 0.7)))
  const tailLen = Math.floor(maxChars * (options.tailRatio ?? 0.2))
  let tailStart = text.length - tailLen
  const code = text.charCodeAt(tailStart)
  if (code >= 0xdc00 && code <= 0xdfff) tailStart++
  const removed = tailStart - headEnd
  const what = options.name ? ` of ${options.name}` : ''
  const marker =
    `\n\n[… ${removed} characters${what} cut here (kept the first ${headEnd} and the last ` +
    `${text.length - tailStart} of ${text.length}); read the file for the rest …]\n\n`
  return {
    text: text.slice(0, headEnd) + marker + text.slice(tailStart),
    keptChars: headEnd + (text.length - tailStart),
    cut: true,
  }
}

/**
 * Read workspace bootstrap files (AGENTS.md, SOUL.md, TOOLS.md, IDENTITY.md, USER.md, …) into
 * "Project Context" sections, each through {@link readWithinRoot} and cut head/tail to
 * `maxChars`. Missing files are listed in `missing`; refused or empty ones in `skipped`.
 * The first section starts with {@link PROJECT_CONTEXT_HEADING}; each has a `## <name>` heading.
 *
 * These sections are meant for the system prompt (step 2 of the architecture: stable text).
 * Throws a `ValidationError` only for malformed options or `names` (not a list of strings).
 */
export async function loadBootstrapFiles(
  workspace: string,
  names: readonly string[] = DEFAULT_BOOTSTRAP_FILES,
  options: BootstrapOptions = {},
): Promise<BootstrapFiles> {
  const opts = parseWith(BootstrapOptionsSchema, options, 'loadBootstrapFiles options')
  parseWith(NamesSchema, names, 'loadBootstrapFiles names')
  return loadBootstrapChecked(workspace, names, bootstrapLimits(opts), opts)
}

/** The read limits of bootstrap files under checked `options`. @internal */
export function bootstrapLimits(options: BootstrapOptions): ResolvedLimits {
  return resolveLimits(
    {
      maxBytes: options.maxBytes ?? 2_097_152,
      ...(options.deny === undefined ? {} : { deny: options.deny }),
    },
    'loadBootstrapFiles options',
  )
}

/**
 * {@link loadBootstrapFiles} with checked `options` and `limits` from {@link bootstrapLimits}:
 * the workspace is resolved once for all names, and with a `cache` an unchanged file is neither
 * read nor rendered again (its section text is the same string as on the last run). @internal
 */
export async function loadBootstrapChecked(
  workspace: string,
  names: readonly string[],
  limits: ResolvedLimits,
  opts: BootstrapOptions,
  cache?: ReadCache,
  resolved?: Promise<string | RootUnavailableError>,
): Promise<BootstrapFiles> {
  const maxChars = opts.maxChars ?? 20_000
  const out: BootstrapFiles = { sections: [], loaded: [], missing: [], skipped: [], truncated: [] }
  const root = await (resolved ?? resolveRoot(workspace))
  const present = typeof root === 'string' ? await entryNames(root, cache) : undefined
  const results = await Promise.all(
    names.map((name) =>
      present && !name.includes('/') && !present.has(entryKey(name))
        ? undefined
        : readResolved(root, name, limits, cache),
    ),
  )
  for (let i = 0; i < names.length; i++) {
    const name = names[i]!
    const result = results[i]
    if (result === undefined) {
      out.missing.push(name) // not in the workspace's listing: nothing to open
      continue
    }
    if (!result.ok) {
      if (result.error.code === FileNotFoundError.code) out.missing.push(name)
      else out.skipped.push({ path: name, reason: result.error.code, error: result.error })
      continue
    }
    if (result.file.text.trim().length === 0) {
      out.skipped.push({ path: name, reason: 'empty' })
      continue
    }
    const first = out.sections.length === 0
    const render = () => renderBootstrap(name, result.file.text, maxChars, opts, first)
    const { text, truncated } = cache
      ? cache.derive(
          result.file,
          `bootstrap:${first}:${maxChars}:${opts.headRatio}:${opts.tailRatio}:${name}`,
          render,
        )
      : render()
    if (truncated) out.truncated.push({ ...truncated })
    out.sections.push({
      id: `bootstrap:${name}`,
      text,
      priority: opts.priority ?? 80,
      cache: 'stable',
    })
    out.loaded.push(name)
  }
  return out
}

/** How a name is compared with the workspace's entries: case and Unicode form folded. */
function entryKey(name: string): string {
  return name.normalize('NFC').toLowerCase()
}

/**
 * The names in `dir` (folded by {@link entryKey}, so a case-insensitive file system still finds
 * `agents.md` for `AGENTS.md`), or `undefined` when it cannot be listed (every name is then
 * opened). One `readdir` instead of a failed `open` per missing bootstrap file; with a `cache`,
 * one `stat` while the directory is unchanged.
 */
async function entryNames(dir: string, cache?: ReadCache): Promise<Set<string> | undefined> {
  const list = async () => new Set((await readdir(dir)).map(entryKey))
  try {
    return await (cache ? cache.listing(dir, list) : list())
  } catch {
    return undefined
  }
}

/** One bootstrap section's text, and how it was cut when it was. */
function renderBootstrap(
  name: string,
  fileText: string,
  maxChars: number,
  opts: BootstrapOptions,
  first: boolean,
): { text: string; truncated?: TruncatedFile } {
  const cut = truncateHeadTail(fileText, maxChars, {
    name,
    ...(opts.headRatio === undefined ? {} : { headRatio: opts.headRatio }),
    ...(opts.tailRatio === undefined ? {} : { tailRatio: opts.tailRatio }),
  })
  const heading = first ? `${PROJECT_CONTEXT_HEADING}\n\n` : ''
  // fenced, the fence longer than any backtick run inside: no line of one file can pose as
  // another file's heading (or close the fence early)
  const text = `${heading}## ${escapeForPrompt(name)}\n\n${fenceCode(cut.text.trimEnd(), 'markdown')}`
  return cut.cut
    ? { text, truncated: { name, chars: fileText.length, keptChars: cut.keptChars } }
    : { text }
}
