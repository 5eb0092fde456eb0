import { randomId, type SessionCustomEntry, type SessionEntry } from '@contextkit/core'
import type { LearnedWindow } from '../budget/context-window.js'

/**
 * The `customType` of the session entries that record a context window a server stated for a
 * model (`data: { model, window }`): the loop writes one when it learns a window from an overflow
 * refusal, and again after each compaction; a run reads the smallest per model.
 */
export const CONTEXT_WINDOW_ENTRY = 'agent_loop.context_window'

/** A `custom` entry recording `learned`, after `parentId`. */
export function windowEntry(
  learned: LearnedWindow,
  parentId: string | null,
  now: Date,
): SessionCustomEntry {
  return {
    type: 'custom',
    id: randomId(),
    parentId,
    ts: now.toISOString(),
    customType: CONTEXT_WINDOW_ENTRY,
    data: { model: learned.model, window: learned.window },
  }
}

function isLearned(data: unknown): data is LearnedWindow {
  if (typeof data !== 'object' || data === null) return false
  const { model, window } = data as Record<string, unknown>
  return (
    typeof model === 'string' &&
    model !== '' &&
    typeof window === 'number' &&
    Number.isSafeInteger(window) &&
    window > 0
  )
}

/**
 * The context windows a session records ({@link CONTEXT_WINDOW_ENTRY} entries), the smallest per
 * model; entries of that type whose data is not `{ model, window }` are passed over.
 */
export function learnedWindows(entries: readonly SessionEntry[]): LearnedWindow[] {
  const out = new Map<string, number>()
  for (const e of entries) {
    if (e.type !== 'custom' || e.customType !== CONTEXT_WINDOW_ENTRY || !isLearned(e.data)) continue
    const known = out.get(e.data.model)
    if (known === undefined || e.data.window < known) out.set(e.data.model, e.data.window)
  }
  return [...out].map(([model, window]) => ({ model, window }))
}
