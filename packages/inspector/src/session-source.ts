import { isAbsolute, relative, sep } from 'node:path'
import { assertSessionId, type SessionEntry, type SessionStore } from '@contextkit/core'
import { SessionEntrySchema } from '@contextkit/core/schemas'
import { backwardLines, forwardLines, openJsonl, sizeOf } from './jsonl-file.js'
import { foldSessionEntry, type SessionFold } from './session-summary.js'

/**
 * How the inspector reads sessions: through any `SessionStore`, and from the files' ends when the
 * store keeps one JSONL file per session (it has `dir` and `pathOf(id)`, as agent-loop's
 * `jsonlSessionStore` does).
 */
export interface SessionSource {
  list(): Promise<string[]>
  /** A marker that changes when the session changes. */
  version(id: string): Promise<string>
  /** Fold the entries after `fold.end` into `fold` (a new fold starts at `end: 0`). */
  update(id: string, fold: SessionFold): Promise<void>
  /**
   * The replies whose position from the end (0: the last) lies in `[first, last]`, and every
   * entry after the oldest of them up to the reply after the newest, in append order; read no
   * further back than needed. `end` is `fold.end` of the summary the positions come from.
   */
  window(id: string, end: number, first: number, last: number): Promise<SessionEntry[]>
}

/** A store that keeps each session in `<dir>/<id>.jsonl` (agent-loop's `JsonlSessionStore`). */
interface FileStore extends SessionStore {
  readonly dir: string
  pathOf(id: string): string
}

function isFileStore(store: SessionStore): store is FileStore {
  const s = store as Partial<FileStore>
  return typeof s.dir === 'string' && typeof s.pathOf === 'function'
}

/** Parse a session line without zod (for the summary pass), or `null`. */
function looseEntry(line: string): Record<string, unknown> | null {
  if (line.trim() === '') return null
  try {
    const value = JSON.parse(line) as unknown
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : null
  } catch {
    return null
  }
}

const USER_MESSAGE =
  /^\{"type":"message","id":"[^"]*","parentId":(?:null|"[^"]*"),"ts":"([^"]+)","message":\{"role":"user"/

/**
 * Fold one line of a session file. A user message (most of a long session's bytes: tool results)
 * is decoded only when a call waits for a decision its result may answer; its time is read from
 * the line's start, as the store writes it.
 */
function foldLine(fold: SessionFold, line: string): void {
  if (fold.pending.size === 0) {
    const user = USER_MESSAGE.exec(line.slice(0, 400))
    if (user) {
      fold.lastTs = user[1] ?? fold.lastTs
      return
    }
  }
  const entry = looseEntry(line)
  if (entry) foldSessionEntry(fold, entry)
  else if (line.trim() !== '') fold.skipped++
}

/** Collect entries newest first until the reply `last` from the end; `true` to go on. */
function windowCollector(first: number, last: number) {
  const kept: SessionEntry[] = []
  let replies = 0
  let keep = first === 0
  const take = (entry: SessionEntry): boolean => {
    if (entry.type === 'message' && entry.message.role === 'assistant') {
      const at = replies++
      if (at === first - 1) {
        keep = true
        return true
      }
      if (keep) kept.push(entry)
      return at < last
    }
    if (keep) kept.push(entry)
    return true
  }
  return { take, entries: () => kept.reverse() }
}

function fileSource(store: FileStore): SessionSource {
  const root = store.dir
  const rel = (id: string) => {
    const r = relative(root, store.pathOf(id))
    if (r.startsWith('..') || isAbsolute(r)) throw new Error(`session ${id} is outside ${root}`)
    return r.split(sep).join('/')
  }
  return {
    list: () => store.list(),
    async version(id) {
      return String(await sizeOf(root, rel(id)))
    },
    async update(id, fold) {
      const handle = await openJsonl(root, rel(id))
      if (!handle) return
      try {
        const { size } = await handle.stat()
        fold.end = await forwardLines(handle, fold.end, size, (line) => foldLine(fold, line))
      } finally {
        await handle.close().catch(() => {})
      }
    },
    async window(id, end, first, last) {
      const handle = await openJsonl(root, rel(id))
      if (!handle) return []
      const collect = windowCollector(first, last)
      try {
        await backwardLines(handle, end, (line) => {
          const parsed = SessionEntrySchema.safeParse(looseEntry(line))
          return parsed.success ? collect.take(parsed.data) : true
        })
      } finally {
        await handle.close().catch(() => {})
      }
      return collect.entries()
    },
  }
}

function storeSource(store: SessionStore): SessionSource {
  return {
    list: () => store.list(),
    async version(id) {
      const { entries } = await (store.loadTail ? store.loadTail(id) : store.load(id))
      const last = entries[entries.length - 1]
      return `${entries.length}:${last && 'id' in last ? last.id : ''}`
    },
    async update(id, fold) {
      const { entries, warnings } = await store.load(id)
      if (entries.length < fold.end) return
      for (const entry of entries.slice(fold.end)) {
        foldSessionEntry(fold, entry as unknown as Record<string, unknown>)
      }
      fold.skipped = warnings.length
      fold.end = entries.length
    },
    async window(id, end, first, last) {
      const { entries } = await store.load(id)
      const collect = windowCollector(first, last)
      for (let i = Math.min(end, entries.length) - 1; i >= 0; i--) {
        if (!collect.take(entries[i] as SessionEntry)) break
      }
      return collect.entries()
    },
  }
}

/** The source for `store`: its files' ends for a JSONL store, else its `load`. */
export function sessionSource(store: SessionStore): SessionSource {
  const source = isFileStore(store) ? fileSource(store) : storeSource(store)
  const check = (id: string) => assertSessionId(id, 'inspector')
  return {
    list: () => source.list(),
    version: async (id) => {
      check(id)
      return source.version(id)
    },
    update: async (id, fold) => {
      check(id)
      return source.update(id, fold)
    },
    window: async (id, end, first, last) => {
      check(id)
      return source.window(id, end, first, last)
    },
  }
}
