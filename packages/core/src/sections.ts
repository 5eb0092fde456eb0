import { array, lazy, object, optional, withFastPath } from './composite-checks.js'
import { assertArray, assertOptions, invalidArgument, parseWith } from './errors.js'
import { isSectionArray } from './input-checks.js'
import type { Section } from './section-schema.js'
import type { TokenCounter } from './tokens.js'
import { boolean, type Check, literal, number, string } from './value-checks.js'

export type { Section } from './section-schema.js'

// fitSections checks its input without zod (core's `isSectionArray`, and a check that words the
// issues when that says no), so neither a bundle of fitSections nor a cold `import()` of a
// package root loads zod; `sections.test.ts` holds the check to the zod `SectionSchema`
// (`@contextkit/core/schemas`) with a fast-check property.
/**
 * The check of a `Section[]` (what `SectionSchema.array()` accepts), without zod:
 * `parseWith(SectionListCheck, value, 'system')` names every bad path.
 */
export const SectionListCheck: Check<Section[]> = /* @__PURE__ */ lazy(() =>
  withFastPath(
    array(
      object({
        id: string({ min: 1 }),
        text: string(),
        priority: number(),
        cache: literal('stable', 'volatile'),
        shorter: optional(array(string())),
        placement: optional(literal('before', 'after')),
        required: optional(boolean()),
      }),
    ),
    isSectionArray,
  ),
)
/** A token budget: a finite number ≥ 0 (`NaN` and the infinities are refused). */
const BudgetCheck = /* @__PURE__ */ lazy(() => number({ min: 0 }))

/** Something budget fitting left out or cut down. */
export interface Omission {
  /** The section's id. */
  id: string
  /** `'shortened'` when the section was cut to fit, `'dropped'` when it was left out. */
  reason: 'shortened' | 'dropped'
  /** Tokens saved compared with the section's full text. */
  tokensSaved: number
}

/** Result of {@link fitSections}. */
export interface FitResult {
  /** Sections kept, in their original order, each with the form chosen for it as `text`. */
  kept: Section[]
  /** One entry per section shortened or dropped, lowest priority first. */
  omissions: Omission[]
  /** Token count of the kept texts (sum of per-section counts). */
  tokens: number
  /** `false` only when the `required` sections alone are over the budget (`tokens` is then too). */
  fits: boolean
}

/**
 * Fit sections into `budgetTokens`, counting each distinct text once.
 *
 * 1. While over budget, swap in `shorter` forms, lowest priority first (ties: later sections
 *    first), each section stepping through its forms before the next is touched.
 * 2. While still over budget, drop whole sections in that same order, so a higher priority is
 *    never dropped while a lower one is kept.
 * 3. Give back room: from the highest priority down, restore the longest form that now fits;
 *    stop at the first section that cannot have its full text back.
 *
 * The total is the sum of per-section counts (separators between sections are not counted).
 * Deterministic: the same input gives the same output. The result fits unless sections marked
 * `required` (never dropped) are alone over the budget: then `fits` is `false`.
 *
 * @throws ValidationError when `sections` is not an array of {@link Section}s, `budgetTokens` is
 * not a finite number ≥ 0 (`NaN`, negative and infinite budgets are refused), or `counter` has
 * no `count` function.
 */
export function fitSections(
  sections: readonly Section[],
  budgetTokens: number,
  counter: TokenCounter,
): FitResult {
  if (!Array.isArray(sections)) invalidArgument('fitSections', 'sections', 'an array', sections)
  parseWith(SectionListCheck, sections, 'fitSections sections')
  return fitCheckedSections(sections, budgetTokens, counter)
}

/**
 * {@link fitSections} for sections the caller has already checked against
 * {@link SectionListCheck}: the same fitting, without checking `sections` again. Internal: the
 * public door is `fitRequest({ …, sectionsChecked: true })`, for a caller that fits the same
 * section objects on every model call (the agent loop checks each object once per run).
 * `budgetTokens` and `counter` are still checked; passing sections that were never checked is a
 * programming error (use {@link fitSections} for those).
 *
 * @throws ValidationError when `budgetTokens` is not a finite number ≥ 0.
 */
export function fitCheckedSections(
  sections: readonly Section[],
  budgetTokens: number,
  counter: TokenCounter,
): FitResult {
  // the plain test accepts what BudgetCheck accepts (a property test holds them together); zod
  // only words the error
  const plain =
    typeof budgetTokens === 'number' && Number.isFinite(budgetTokens) && budgetTokens >= 0
  if (!plain) parseWith(BudgetCheck, budgetTokens, 'fitSections budgetTokens')
  if (typeof (counter as { count?: unknown } | null)?.count !== 'function') {
    invalidArgument('fitSections', 'counter', 'a TokenCounter', counter)
  }
  const memo = new Map<string, number>()
  const count = (text: string): number => {
    let n = memo.get(text)
    if (n === undefined) {
      n = counter.count(text)
      if (typeof n !== 'number' || !Number.isFinite(n) || n < 0) {
        invalidArgument(
          'fitSections',
          'counter',
          'a TokenCounter whose count() returns a finite number ≥ 0',
          n,
        )
      }
      memo.set(text, n)
    }
    return n
  }

  const n = sections.length
  const forms: string[][] = sections.map((s) => [s.text, ...(s.shorter ?? [])])
  const full = sections.map((s) => count(s.text))
  const formIdx = new Array<number>(n).fill(0)
  const dropped = new Array<boolean>(n).fill(false)
  let total = 0
  for (const t of full) total += t

  // Least important first; among equal priorities, the later section first.
  const order = sections.map((_, i) => i)
  order.sort((a, b) => sections[a]!.priority - sections[b]!.priority || b - a)

  const currentCost = (i: number): number => (dropped[i] ? 0 : count(forms[i]![formIdx[i]!]!))

  if (total > budgetTokens) {
    for (const i of order) {
      const options = forms[i]!
      for (let f = 1; f < options.length && total > budgetTokens; f++) {
        const cost = count(options[f]!)
        const now = currentCost(i)
        if (cost < now) {
          total += cost - now
          formIdx[i] = f
        }
      }
      if (total <= budgetTokens) break
    }
  }
  if (total > budgetTokens) {
    for (const i of order) {
      if (sections[i]!.required) continue
      total -= currentCost(i)
      dropped[i] = true
      if (total <= budgetTokens) break
    }
  }
  // Give back room to the most important sections first.
  for (let k = n - 1; k >= 0; k--) {
    const i = order[k]!
    if (dropped[i] || formIdx[i] === 0) continue
    const now = currentCost(i)
    for (let f = 0; f < formIdx[i]!; f++) {
      const cost = count(forms[i]![f]!)
      if (cost <= now || total - now + cost <= budgetTokens) {
        total += cost - now
        formIdx[i] = f
        break
      }
    }
    if (formIdx[i] !== 0) break
  }

  const kept: Section[] = []
  for (let i = 0; i < n; i++) {
    if (dropped[i]) continue
    const s = sections[i]!
    kept.push(formIdx[i] === 0 ? s : { ...s, text: forms[i]![formIdx[i]!]! })
  }
  const omissions: Omission[] = []
  for (const i of order) {
    if (dropped[i])
      omissions.push({ id: sections[i]!.id, reason: 'dropped', tokensSaved: full[i]! })
    else if (formIdx[i] !== 0) {
      const saved = full[i]! - currentCost(i)
      omissions.push({ id: sections[i]!.id, reason: 'shortened', tokensSaved: saved })
    }
  }
  return { kept, omissions, tokens: total, fits: total <= budgetTokens }
}

/** Join section texts in order with a blank line between them, skipping empty texts. */
export function renderSections(sections: readonly Pick<Section, 'text'>[]): string {
  assertArray(sections, 'renderSections', 'sections')
  const parts: string[] = []
  for (const s of sections) if (s.text.length > 0) parts.push(s.text)
  return parts.join('\n\n')
}

/**
 * A short note for the model listing what budget fitting left out or shortened, so truncation is
 * never silent. Returns `''` when nothing was omitted. Ids are listed up to `maxIds` per kind.
 */
export function renderOmissionNotice(
  omissions: readonly Omission[],
  options: { maxIds?: number } = {},
): string {
  assertArray(omissions, 'renderOmissionNotice', 'omissions')
  assertOptions(options, 'renderOmissionNotice', 'options')
  if (omissions.length === 0) return ''
  const maxIds = options.maxIds ?? 12
  const lines = ['[Context note: some material was left out to fit the token budget.]']
  for (const reason of ['dropped', 'shortened'] as const) {
    const items = omissions.filter((o) => o.reason === reason)
    if (items.length === 0) continue
    // a figure only from known counts: an omission without a finite count adds nothing
    const counts = items.map((o) => o.tokensSaved).filter((n) => Number.isFinite(n) && n >= 0)
    const saved = counts.reduce((sum, n) => sum + n, 0)
    const shown = items.slice(0, maxIds).map((o) => sanitizeId(String(o.id)))
    const more = items.length > shown.length ? `, and ${items.length - shown.length} more` : ''
    const verb = reason === 'dropped' ? 'Left out' : 'Shortened'
    const size = counts.length > 0 ? `, ~${EN_US.format(Math.round(saved))} tokens` : ''
    lines.push(`${verb} (${items.length}${size}): ${shown.join(', ')}${more}`)
  }
  lines.push('Ask for or read anything listed here if you need it.')
  return lines.join('\n')
}

/**
 * Numbers as `toLocaleString('en-US')` writes them (`12,345`), from one formatter: the notice is
 * rendered on every model call, and `toLocaleString` builds a new formatter each time.
 */
const EN_US = new Intl.NumberFormat('en-US')

function sanitizeId(id: string): string {
  const flat = id.replace(/[\r\n\t]+/g, ' ')
  return flat.length > 80 ? `${flat.slice(0, 77)}...` : flat
}
