import type { PendingCall, UsageFigures } from './model.js'
import { addUsage, emptyUsage } from './trace-summary.js'

/** What a forward pass over a session found (kept per session, grown incrementally). */
export interface SessionFold {
  /** Where the pass stopped: a byte offset (files) or an entry count (other stores). */
  end: number
  replies: number
  usage: UsageFigures
  compactions: number
  createdAt: string | null
  lastTs: string | null
  /** Calls of the last reply that wait for a person, by id. */
  pending: Map<string, PendingCall>
  /** Lines that were not entries. */
  skipped: number
}

/** A fold before the first entry. */
export function emptySessionFold(): SessionFold {
  return {
    end: 0,
    replies: 0,
    usage: emptyUsage(),
    compactions: 0,
    createdAt: null,
    lastTs: null,
    pending: new Map(),
    skipped: 0,
  }
}

type Loose = Record<string, unknown>

function blocks(message: unknown): Loose[] {
  const content = (message as { content?: unknown } | null)?.content
  return Array.isArray(content)
    ? content.filter((b): b is Loose => typeof b === 'object' && b !== null)
    : []
}

/** Indented JSON of a call's input, never throwing. */
export function inputText(input: unknown): string {
  try {
    return JSON.stringify(input ?? {}, null, 2) ?? '{}'
  } catch {
    return '[unreadable input]'
  }
}

function foldMessage(fold: SessionFold, message: unknown): void {
  const role = (message as { role?: unknown } | null)?.role
  if (role === 'assistant') {
    fold.replies++
    addUsage(fold.usage, (message as { usage?: unknown }).usage)
    fold.pending.clear()
    return
  }
  for (const b of blocks(message)) {
    if (b.type === 'tool_result' && typeof b.toolCallId === 'string')
      fold.pending.delete(b.toolCallId)
  }
}

/**
 * Fold one session entry (a parsed line, not validated: a summary only reads fields it checks)
 * into `fold`, in append order.
 */
export function foldSessionEntry(fold: SessionFold, entry: Loose): void {
  if (typeof entry.ts === 'string') fold.lastTs = entry.ts
  switch (entry.type) {
    case 'session':
      if (typeof entry.createdAt === 'string') fold.createdAt = entry.createdAt
      fold.lastTs ??= fold.createdAt
      return
    case 'message':
      foldMessage(fold, entry.message)
      return
    case 'compaction':
      fold.compactions++
      return
    case 'approval': {
      const id = entry.toolCallId
      if (typeof id !== 'string') return
      if (entry.status === 'requested') {
        fold.pending.set(id, {
          toolCallId: id,
          tool: String(entry.tool ?? ''),
          input: inputText(entry.input),
        })
      } else fold.pending.delete(id)
      return
    }
  }
}
