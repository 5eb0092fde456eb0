import type { SessionEntry } from '@contextkit/core'
import { SessionEntrySchema } from '@contextkit/core/schemas'
import { resumeTailBoundary } from '@contextkit/core/store'
import fc from 'fast-check'
import { expect, test } from 'vitest'
import { sessionLines, sessionStep } from '../../../../test-utils/session-log.js'
import { applyCompaction } from './apply-compaction.js'
import { lastEntryId } from './entries.js'
import { runStateOf } from './run-state.js'

/** The valid entries of generated lines, as a store's load keeps them (bad lines skipped). */
function entriesOf(lines: readonly string[]): SessionEntry[] {
  return lines.flatMap((line) => {
    try {
      const parsed = SessionEntrySchema.safeParse(JSON.parse(line))
      return parsed.success ? [parsed.data] : []
    } catch {
      return []
    }
  })
}

/** What a store's `loadTail` may stop at: the header, then the shortest suffix core's boundary takes. */
function boundaryTail(entries: readonly SessionEntry[]): SessionEntry[] {
  const [header, ...body] = entries
  const enough = resumeTailBoundary()
  for (let i = body.length - 1; i >= 0; i--) {
    if (enough(body[i] as SessionEntry)) return [header as SessionEntry, ...body.slice(i)]
  }
  return [...entries]
}

// store-files holds every store's `loadTail` to core's `resumeTailBoundary` (its tail property);
// this holds the boundary to the loop: what a resume derives from the tail is what it derives
// from the full load.
test('the tail core resumeTailBoundary takes resumes as the full load does, for any session', () => {
  fc.assert(
    fc.property(fc.array(sessionStep, { maxLength: 40 }), fc.boolean(), (steps, reuseIds) => {
      const full = entriesOf(sessionLines(steps, reuseIds))
      const tail = boundaryTail(full)
      expect(applyCompaction(tail)).toEqual(applyCompaction(full))
      expect(runStateOf(tail)).toEqual(runStateOf(full))
      expect(lastEntryId(tail)).toBe(lastEntryId(full))
    }),
    { numRuns: 300 },
  )
})
