// The check of a message list that starts with an earlier checked list's messages (checked-lists.ts)
// against a check of every message: the same answer whatever was sealed, changed in place or
// replaced in between.
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { chatMessage } from '../../../test-utils/arbitraries.js'
import { message } from './input-arbitraries.fixture.js'
import { isMessage, isMessageArray } from './input-checks.js'
import type { Message } from './message-schemas.js'
import { sealMessages } from './sealed-messages.js'

/** Every message looked at, nothing remembered. */
function checkEach(list: readonly unknown[]): boolean {
  for (let i = 0; i < list.length; i++) if (!isMessage(list[i])) return false
  return true
}

const step = fc.oneof(
  {
    // a list that begins with the previous one's first `keep` messages, then messages of the pool
    arbitrary: fc.record({
      kind: fc.constant('check' as const),
      keep: fc.nat(12),
      more: fc.array(fc.nat(), { maxLength: 5 }),
    }),
    weight: 3,
  },
  {
    // a message of the pool changed in place (when it is not frozen), or given its old values back
    arbitrary: fc.record({
      kind: fc.constant('change' as const),
      at: fc.nat(),
      how: fc.constantFrom('role', 'content', 'back'),
    }),
    weight: 2,
  },
  { arbitrary: fc.record({ kind: fc.constant('seal' as const), at: fc.nat() }), weight: 1 },
)

describe('checks of lists that begin with checked messages', () => {
  test('property: isMessageArray answers as a look at every message does', () => {
    let passed = 0
    fc.assert(
      fc.property(
        fc.array(fc.oneof(chatMessage, chatMessage, message), { minLength: 2, maxLength: 6 }),
        fc.array(fc.boolean()),
        fc.array(step, { minLength: 4, maxLength: 30 }),
        (given, sealFirst, changes) => {
          // copies: the steps change them in place (fast-check reuses what it generated)
          const pool = given.map((m) => ({ ...m }))
          const old = given.map((m) => ({ ...m }))
          const sealing = pool.flatMap((_, at) =>
            sealFirst[at] ? [{ kind: 'seal' as const, at }] : [],
          )
          const steps = [...sealing, ...changes]
          let list: unknown[] = []
          for (const s of steps) {
            const at = s.kind === 'check' ? 0 : s.at % pool.length
            const m = pool[at] as Record<string, unknown>
            if (s.kind === 'seal') {
              try {
                sealMessages([m as Message])
              } catch {
                // not a message sealing takes: stays as it is
              }
            } else if (s.kind === 'change' && !Object.isFrozen(m)) {
              if (s.how === 'role') m.role = 'robot'
              else if (s.how === 'content') m.content = [{ type: 'text' }]
              else Object.assign(m, old[at])
            } else if (s.kind === 'check') {
              list = [...list.slice(0, s.keep), ...s.more.map((i) => pool[i % pool.length])]
              const expected = checkEach(list)
              expect(isMessageArray(list)).toBe(expected)
              if (expected) passed++
            }
          }
        },
      ),
      { numRuns: 400 },
    )
    expect(passed).toBeGreaterThan(200)
  })
})
