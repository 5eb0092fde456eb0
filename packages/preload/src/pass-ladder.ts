import {
  assertString,
  fitSections,
  invalidArgument,
  type Omission,
  parseWith,
  renderSections,
  type Section,
  SectionListCheck,
  type TokenCounter,
} from '@contextkit/core'
import * as c from '@contextkit/core/check'
import { safeCut } from './text-lines.js'

/**
 * The parts of a visual-context prompt, as the seed's `format_payload` builds them. Texts are
 * rendered in this order; empty parts are left out.
 */
export interface PassLadderParts {
  /** Instruction and page header. Kept to the end. */
  header: string
  /** Selected elements with their HTML (`full`) and without it (`lite`). */
  elements: { full: string; lite: string }
  /** Reference images, without vision summaries. */
  images?: string
  /** Vision summaries of the images; dropping them is the seed's "simplify vision" pass. */
  vision?: string
  /** Screenshot note; dropped together with the images. */
  screenshot?: string
  /** Backend structure map. */
  backend?: string
  /** Pre-loaded files: sections from `buildPreloadedFiles`, or one rendered text. */
  preloaded?: readonly Section[] | string
  /** The list of files to modify. Kept to the end. */
  filesToModify?: string
}

// core's zod-free checks rather than zod, so neither a bundle of fitPassLadder nor importing it
// loads zod; `pass-ladder.test.ts` holds PartsCheck to the zod schema of the same shape
// (fast-check).
/** The check of {@link PassLadderParts}. */
export const PartsCheck = /* @__PURE__ */ c.lazy(() =>
  c.object({
    header: c.string(),
    elements: c.object({ full: c.string(), lite: c.string() }),
    images: c.optional(c.string()),
    vision: c.optional(c.string()),
    screenshot: c.optional(c.string()),
    backend: c.optional(c.string()),
    preloaded: c.optional(c.union(SectionListCheck, c.string())),
    filesToModify: c.optional(c.string()),
  }),
)

/** A token budget: a finite number ≥ 0. */
const BudgetCheck = /* @__PURE__ */ c.lazy(() => c.number({ min: 0 }))

/**
 * Priorities that turn the seed's passes into `fitSections` order. Shortening comes first
 * (elements lose their HTML), then drops from the lowest priority up: vision summaries,
 * pre-loaded files, images and screenshot, backend. Header, elements and files-to-modify are
 * the core; if even they do not fit, {@link fitPassLadder} hard-truncates them (the last pass).
 */
export const LADDER_PRIORITIES = Object.freeze({
  vision: 10,
  preloaded: 20,
  images: 30,
  screenshot: 30,
  backend: 40,
  elements: 90,
  filesToModify: 95,
  header: 100,
})

/** Lowest priority of the core sections that are truncated rather than dropped. */
const CORE_PRIORITY = LADDER_PRIORITIES.elements

/** The marker appended when the core is hard-truncated. */
export const HARD_TRUNCATION_MARKER = '\n[… truncated to fit the token budget]'

/**
 * Express the seed's pass ladder as core sections, in render order: header, elements (with a
 * `shorter` form without HTML), images, vision, screenshot, backend, pre-loaded files (each its
 * own section), files to modify. All are `volatile`.
 *
 * Throws a `ValidationError` when `parts` is malformed (a programming error).
 */
export function passLadderSections(parts: PassLadderParts): Section[] {
  parseWith(PartsCheck, parts, 'passLadderSections parts')
  const out: Section[] = []
  const add = (id: string, text: string | undefined, priority: number, shorter?: string) => {
    if (text === undefined || text.length === 0) return
    out.push({
      id,
      text,
      priority,
      cache: 'volatile',
      ...(shorter !== undefined && shorter !== text ? { shorter: [shorter] } : {}),
    })
  }
  add('payload:header', parts.header, LADDER_PRIORITIES.header)
  add('payload:elements', parts.elements.full, LADDER_PRIORITIES.elements, parts.elements.lite)
  add('payload:images', parts.images, LADDER_PRIORITIES.images)
  add('payload:vision', parts.vision, LADDER_PRIORITIES.vision)
  add('payload:screenshot', parts.screenshot, LADDER_PRIORITIES.screenshot)
  add('payload:backend', parts.backend, LADDER_PRIORITIES.backend)
  if (typeof parts.preloaded === 'string') {
    add('payload:preloaded', parts.preloaded, LADDER_PRIORITIES.preloaded)
  } else {
    for (const s of parts.preloaded ?? []) {
      const { shorter, ...rest } = s
      out.push({
        ...rest,
        priority: LADDER_PRIORITIES.preloaded,
        cache: 'volatile',
        ...(shorter ? { shorter } : {}),
      })
    }
  }
  add('payload:files-to-modify', parts.filesToModify, LADDER_PRIORITIES.filesToModify)
  return out
}

/** Result of {@link fitPassLadder}. */
export interface PassLadderResult {
  /** The prompt text (sections joined with blank lines). */
  text: string
  /** Sections kept, with the form chosen for each. */
  kept: Section[]
  /** What was shortened or dropped. */
  omissions: Omission[]
  /** `true` when even the core did not fit and was cut (the seed's last pass). */
  hardTruncated: boolean
  /** Tokens of the kept sections (or of `text` when hard-truncated). */
  tokens: number
}

/**
 * Run the seed's pass ladder with core `fitSections`: shorten elements, drop vision, pre-loaded
 * files, images and screenshot, backend — in that order, only as far as needed to fit `budget`.
 * When the core (header, elements without HTML, files to modify) alone is over budget, it is
 * hard-truncated with {@link HARD_TRUNCATION_MARKER}.
 *
 * Unlike the seed, fitting may give a section's fuller form back when later drops left room.
 * Throws a `ValidationError` for malformed `parts` or a `budget` that is not a number ≥ 0.
 */
export function fitPassLadder(
  parts: PassLadderParts,
  budget: number,
  counter: TokenCounter,
): PassLadderResult {
  parseWith(BudgetCheck, budget, 'fitPassLadder budget')
  const sections = passLadderSections(parts)
  const fit = fitSections(sections, budget, counter)
  const coreIds = new Set(sections.filter((s) => s.priority >= CORE_PRIORITY).map((s) => s.id))
  const coreDropped = fit.omissions.some((o) => o.reason === 'dropped' && coreIds.has(o.id))
  if (!coreDropped) {
    return {
      text: renderSections(fit.kept),
      kept: fit.kept,
      omissions: fit.omissions,
      hardTruncated: false,
      tokens: fit.tokens,
    }
  }
  const core = sections
    .filter((s) => s.priority >= CORE_PRIORITY)
    .map((s) => ({ ...s, text: s.shorter?.[0] ?? s.text }))
  const text = truncateToTokens(renderSections(core), budget, counter)
  const omissions: Omission[] = sections.map((s) =>
    s.priority >= CORE_PRIORITY
      ? { id: s.id, reason: 'shortened', tokensSaved: counter.count(s.text) }
      : { id: s.id, reason: 'dropped', tokensSaved: counter.count(s.text) },
  )
  const kept: Section[] = text.length === 0 ? [] : [{ ...core[0]!, id: 'payload:core', text }]
  return { text, kept, omissions, hardTruncated: true, tokens: counter.count(text) }
}

/**
 * The longest prefix of `text` (plus {@link HARD_TRUNCATION_MARKER} when cut) whose token count is
 * at most `budget`; `''` when not even the marker fits. Throws a `ValidationError` when `budget`
 * is not a number ≥ 0 (`NaN` included).
 */
export function truncateToTokens(text: string, budget: number, counter: TokenCounter): string {
  assertString(text, 'truncateToTokens', 'text')
  if (typeof (counter as Partial<TokenCounter> | null)?.count !== 'function') {
    invalidArgument('truncateToTokens', 'counter', 'a TokenCounter', counter)
  }
  parseWith(BudgetCheck, budget, 'truncateToTokens budget')
  if (counter.count(text) <= budget) return text
  if (counter.count(HARD_TRUNCATION_MARKER) > budget) return ''
  let lo = 0
  let hi = text.length
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2)
    const candidate = text.slice(0, safeCut(text, mid)) + HARD_TRUNCATION_MARKER
    if (counter.count(candidate) <= budget) lo = mid
    else hi = mid - 1
  }
  return text.slice(0, safeCut(text, lo)) + HARD_TRUNCATION_MARKER
}
