import type { SessionEntry } from '@contextkit/core'
import { resumeTailBoundary } from '@contextkit/core/store'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { sessionLines, sessionStep } from '../../../test-utils/session-log.js'
import { parseSessionLines } from './session-lines.js'
import { type ByteSource, readSessionTail } from './session-tail.js'

/** Whether `body`, read from its end, holds all core's `resumeTailBoundary` asks for. */
function holdsWhatAResumeNeeds(body: readonly SessionEntry[]): boolean {
  const enough = resumeTailBoundary()
  return [...body].reverse().some(enough)
}

/** A byte source over `bytes` that hands out copies (a file read never shares memory). */
function memory(bytes: Uint8Array): ByteSource {
  return { size: bytes.length, read: async (pos, len) => bytes.slice(pos, pos + len) }
}

const countLines = (bytes: Uint8Array, end: number) => {
  let n = 1
  for (let i = 0; i < end; i++) if (bytes[i] === 0x0a) n++
  return n
}

describe('readSessionTail', () => {
  test('gives the header and a suffix of the full load holding what a resume needs, for any session and block size', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(sessionStep, { maxLength: 40 }),
        fc.record({
          reuseIds: fc.boolean(),
          crlf: fc.boolean(),
          torn: fc.nat(30),
          terminated: fc.boolean(),
        }),
        fc.integer({ min: 1, max: 300 }),
        async (steps, shape, blockSize) => {
          const lines = sessionLines(steps, shape.reuseIds)
          let text = lines.join(shape.crlf ? '\r\n' : '\n') + (shape.terminated ? '\n' : '')
          if (shape.torn > 0 && !shape.terminated)
            text = text.slice(0, Math.max(0, text.length - shape.torn))
          const bytes = new TextEncoder().encode(text)
          const full = parseSessionLines(bytes)
          const tail = await readSessionTail(memory(bytes), blockSize)

          expect(tail.entries.some((e) => e.type === 'session')).toBe(
            full.entries.some((e) => e.type === 'session'),
          )
          expect(tail.tornTail).toBe(full.tornTail)
          // the header's line, then a suffix of the full load; warnings of the lines returned
          const fromLine = countLines(bytes, tail.start)
          const firstLine = bytes.subarray(0, Math.max(0, bytes.indexOf(0x0a)))
          const head = tail.whole ? [] : parseSessionLines(new Uint8Array([...firstLine, 0x0a]))
          const headCount = tail.whole ? 0 : (head as { entries: unknown[] }).entries.length
          const body = tail.entries.slice(headCount)
          expect(tail.entries.slice(0, headCount)).toEqual(full.entries.slice(0, headCount))
          expect(body).toEqual(full.entries.slice(full.entries.length - body.length))
          // what a resume needs (agent-loop's resume-tail property: the same history and run state)
          if (!tail.whole) expect(holdsWhatAResumeNeeds(body)).toBe(true)
          expect(tail.warnings).toEqual(
            full.warnings.filter((w) => w.line === 1 || (w.line ?? 0) >= fromLine),
          )
          if (tail.whole) expect(tail).toMatchObject(full)
        },
      ),
      { numRuns: 300 },
    )
  })
})
