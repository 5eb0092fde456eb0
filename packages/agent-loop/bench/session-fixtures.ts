import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { SessionEntry, SessionMessageEntry } from '@contextkit/core'
import { sessionHeader } from '@contextkit/core/store'
import { afterAll } from 'vitest'

/** A fresh temporary directory for one benchmark file, removed after the file's benchmarks. */
export function benchDir(label: string): string {
  const dir = mkdtempSync(join(tmpdir(), `ck-bench-${label}-`))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

const PROSE =
  'The loop reads the file, checks the bounds and calls the tool again when the result is short. '

/**
 * The `n`-th entry of a realistic agent session, cycling through a user turn (~200 chars), an
 * assistant reply with a tool call (~400 chars), and a tool result (~1 KB).
 */
export function realisticEntry(n: number): SessionMessageEntry {
  const base = {
    type: 'message' as const,
    id: `e${n}`,
    parentId: n === 0 ? null : `e${n - 1}`,
    ts: new Date(Date.UTC(2026, 0, 1) + n * 1000).toISOString(),
  }
  switch (n % 3) {
    case 0:
      return {
        ...base,
        message: { role: 'user', content: [{ type: 'text', text: `${n}: ${PROSE.repeat(2)}` }] },
      }
    case 1:
      return {
        ...base,
        message: {
          role: 'assistant',
          content: [
            { type: 'text', text: PROSE.repeat(4) },
            {
              type: 'tool_call',
              id: `call_${n}`,
              name: 'read_file',
              input: { path: `src/file-${n}.ts`, limit: 200 },
            },
          ],
          stopReason: 'tool_use',
          usage: { input: 1200 + n, output: 80, cacheRead: 1000, cacheWrite: 0 },
        },
      }
    default:
      return {
        ...base,
        message: {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              toolCallId: `call_${n - 1}`,
              content: [{ type: 'text', text: PROSE.repeat(11) }],
              isError: false,
            },
          ],
        },
      }
  }
}

/** A session of `count` realistic entries after its header. */
export function realisticSession(id: string, count: number): SessionEntry[] {
  return [
    sessionHeader(id, new Date('2026-01-01T00:00:00Z')),
    ...Array.from({ length: count }, (_, n) => realisticEntry(n)),
  ]
}
