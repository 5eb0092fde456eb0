import type { SessionEntry, SessionWarning } from '@contextkit/core'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { sessionLines, sessionStep } from '../../../test-utils/session-log.js'
import { parseSessionLines } from './session-lines.js'
import { type ForwardSource, readSessionForward, type TornLine } from './session-reader.js'
import { SESSION_WARNING_CODES } from './warning-codes.js'

/** A source over `bytes` that copies into the reader's buffer (as a file read does). */
function memory(bytes: Uint8Array): ForwardSource {
  return {
    read: async (buffer, position) => {
      const part = bytes.subarray(position, position + buffer.length)
      buffer.set(part)
      return part.length
    },
  }
}

/** Everything a forward read gives, the torn line's warning reported last (as `load` does). */
async function readAll(bytes: Uint8Array, blockSize: number, maxLineBytes?: number) {
  const warnings: SessionWarning[] = []
  const torn: { line?: TornLine } = {}
  const entries: SessionEntry[] = []
  const options = { blockSize, ...(maxLineBytes === undefined ? {} : { maxLineBytes }) }
  for await (const entry of readSessionForward(memory(bytes), warnings, torn, options))
    entries.push(entry)
  return { entries, warnings: torn.line ? [...warnings, torn.line.warning] : warnings, torn }
}

const encode = (text: string) => new TextEncoder().encode(text)

describe('readSessionForward', () => {
  test('reads what parseSessionLines reads from the whole file, for any session and block size', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(sessionStep, { maxLength: 40 }),
        fc.record({ crlf: fc.boolean(), torn: fc.nat(30), terminated: fc.boolean() }),
        fc.integer({ min: 1, max: 300 }),
        async (steps, shape, blockSize) => {
          let text = sessionLines(steps, false).join(shape.crlf ? '\r\n' : '\n')
          if (shape.terminated) text += '\n'
          else if (shape.torn > 0) text = text.slice(0, Math.max(0, text.length - shape.torn))
          const bytes = encode(text)
          const whole = parseSessionLines(bytes)
          const read = await readAll(bytes, blockSize)
          expect(read.entries).toEqual(whole.entries)
          expect(read.warnings).toEqual(whole.warnings)
          expect(read.torn.line !== undefined).toBe(whole.tornTail)
        },
      ),
      { numRuns: 150 },
    )
  })

  test('a torn last line is handed back with its offset and the lines before it', async () => {
    const lines = sessionLines([{ kind: 'user', text: 'é', results: 0 }], false)
    const head = `${lines.join('\n')}\n\n`
    const bytes = encode(`${head}{"type":"mess`)
    const { torn, warnings } = await readAll(bytes, 7)
    expect(torn.line).toMatchObject({ position: encode(head).length, linesBefore: 3 })
    expect(warnings.map((w) => [w.code, w.line])).toEqual([[SESSION_WARNING_CODES.tornLine, 4]])
  })

  test('a line longer than maxLineBytes is skipped with a warning, never held, the others kept', async () => {
    const [header, user] = sessionLines([{ kind: 'user', text: 'hi', results: 0 }], false)
    const long = `{"x":"${'y'.repeat(300)}"}`
    const text = [header, long, user, long, 'not json', user].join('\n')
    for (const blockSize of [1, 16, 64, 305, 1024, 4096]) {
      const read = await readAll(encode(`${text}\n`), blockSize, 200)
      expect(read.entries).toHaveLength(3)
      expect(read.warnings.map((w) => [w.code, w.line])).toEqual([
        [SESSION_WARNING_CODES.lineTooLong, 2],
        [SESSION_WARNING_CODES.lineTooLong, 4],
        [SESSION_WARNING_CODES.corruptLine, 5],
      ])
      expect(read.warnings[0]?.message).toMatch(/308 bytes, longer than the 200 bytes/)
      // exactly the limit is read; one byte more is not
      const exact = await readAll(encode(`${header}\n${user}\n`), blockSize, user?.length)
      expect(exact.entries).toHaveLength(2)
      // unterminated and too long: a torn last line
      const cut = await readAll(encode(`${header}\n${long}`), blockSize, 200)
      expect(cut.torn.line?.warning.code).toBe(SESSION_WARNING_CODES.tornLine)
    }
  })
})
