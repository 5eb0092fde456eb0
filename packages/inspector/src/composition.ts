import { invalidArgument } from '@contextkit/core'
import * as z from 'zod'
import type { CompositionDiffView, CompositionView } from './model.js'

/** The `agent:composition` record versions this inspector reads. */
export const COMPOSITION_VERSIONS = [1] as const

const PartSchema = z.object({
  kind: z.string(),
  id: z.string(),
  tokens: z.number().finite(),
  digest: z.string().optional(),
  count: z.number().int().nonnegative().optional(),
  cache: z.string().optional(),
})

/** The `agent:composition` record, version 1 (agent-loop's `StepComposition`), as read back. */
export const CompositionRecordSchema = z.object({
  v: z.literal(1),
  step: z.number().int().nonnegative(),
  phase: z.string(),
  model: z.string(),
  window: z.number().finite(),
  counter: z.object({ id: z.string(), kind: z.enum(['estimate', 'exact']) }),
  parts: z.array(PartSchema),
  reply: z.number().finite(),
  total: z.number().finite(),
  free: z.number().finite(),
  messages: z.object({
    count: z.number().int().nonnegative(),
    same: z.number().int().nonnegative().nullable(),
  }),
})

/** A version 1 composition record. */
export type CompositionRecord = z.infer<typeof CompositionRecordSchema>

/** The page's view of a composition record, or `null` for a version this reader does not know. */
export function compositionView(data: unknown): CompositionView | null {
  const parsed = CompositionRecordSchema.safeParse(data)
  if (!parsed.success) return null
  const r = parsed.data
  return {
    window: r.window,
    reply: r.reply,
    total: r.total,
    free: r.free,
    exact: r.counter.kind === 'exact',
    counter: r.counter.id,
    parts: r.parts.map((p) => ({ ...p })),
    messages: { ...r.messages },
  }
}

function label(p: { kind: string; id: string }): string {
  return p.kind === p.id ? p.kind : `${p.kind} ${p.id}`
}

/** Parts whose content a digest stands for (messages are compared by `messages.same`). */
function keyed(view: CompositionView): Map<string, string | undefined> {
  const out = new Map<string, string | undefined>()
  for (const p of view.parts) {
    if (p.kind === 'history' || p.kind === 'tool-results') continue
    out.set(label(p), p.digest)
  }
  return out
}

/** Check a view given to {@link compositionDiff}. */
function assertView(value: unknown, param: string): asserts value is CompositionView {
  const v = value as Partial<CompositionView> | null
  if (
    typeof v !== 'object' ||
    v === null ||
    !Array.isArray(v.parts) ||
    typeof v.messages !== 'object' ||
    v.messages === null
  ) {
    invalidArgument(
      'compositionDiff',
      param,
      'a CompositionView (compositionView of a record)',
      value,
    )
  }
}

/**
 * What changed from `before` (step `previous`) to `after`: parts added, removed or with new
 * content, whether the message history was kept, and the first difference in request order —
 * what ends a cached prefix. Pure.
 */
export function compositionDiff(
  before: CompositionView,
  after: CompositionView,
  previous: number,
): CompositionDiffView {
  assertView(before, 'before')
  assertView(after, 'after')
  if (!Number.isSafeInteger(previous))
    invalidArgument('compositionDiff', 'previous', 'a step index', previous)
  const a = keyed(before)
  const b = keyed(after)
  const added = [...b.keys()].filter((k) => !a.has(k))
  const removed = [...a.keys()].filter((k) => !b.has(k))
  const changed = [...b.keys()].filter((k) => a.has(k) && a.get(k) !== b.get(k))
  const same = after.messages.same
  let firstChange: string | null = null
  for (const p of after.parts) {
    const k = label(p)
    if (p.kind === 'history' || p.kind === 'tool-results') {
      if (same !== null && same < before.messages.count) {
        firstChange = `history (message ${same + 1} of ${before.messages.count} differs)`
        break
      }
      continue
    }
    if (!a.has(k) || a.get(k) !== b.get(k)) {
      firstChange = k
      break
    }
  }
  if (firstChange === null && removed.length > 0) firstChange = removed[0] ?? null
  return {
    previous,
    added,
    removed,
    changed,
    sameMessages: same,
    previousMessages: before.messages.count,
    firstChange,
  }
}
