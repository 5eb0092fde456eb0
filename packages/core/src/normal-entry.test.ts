import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { isNormalSessionEntry } from './normal-entry.js'
import { SessionEntrySchema } from './session-entry-schemas.js'
import type { SessionEntry } from './session-store.js'

const str = fc.string({ maxLength: 8 })
const id = fc.string({ minLength: 1, maxLength: 6 })
const json = fc.jsonValue({ maxDepth: 2 })

const textBlock = fc.record({ type: fc.constant('text'), text: str })
const imageBlock = fc.record({
  type: fc.constant('image'),
  mediaType: fc.constantFrom('image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/bmp'),
  data: str,
})
const block = fc.oneof(
  textBlock,
  imageBlock,
  fc.record(
    { type: fc.constant('thinking'), thinking: str, signature: str },
    { requiredKeys: ['type', 'thinking'] },
  ),
  fc.record(
    {
      type: fc.constant('tool_call'),
      id,
      name: id,
      input: fc.dictionary(fc.string({ maxLength: 4 }), json, { maxKeys: 3 }),
      raw: str,
    },
    { requiredKeys: ['type', 'id', 'name', 'input'] },
  ),
  fc.record(
    {
      type: fc.constant('tool_result'),
      toolCallId: id,
      content: fc.array(fc.oneof(textBlock, imageBlock), { maxLength: 2 }),
      isError: fc.boolean(),
    },
    { requiredKeys: ['type', 'toolCallId', 'content'] },
  ),
)
const count = fc.oneof(fc.nat(1000), fc.constant(-1), fc.constant(1.5))
const message = fc.oneof(
  fc.record(
    {
      role: fc.constantFrom('user', 'assistant'),
      content: fc.array(block, { maxLength: 3 }),
      participant: fc.string({ maxLength: 3 }),
      cacheBreakpoint: fc.boolean(),
    },
    { requiredKeys: ['role', 'content'] },
  ),
  fc.record(
    {
      role: fc.constant('assistant'),
      content: fc.array(block, { maxLength: 3 }),
      stopReason: fc.constantFrom('end_turn', 'tool_use', 'error', 'nope'),
      stopSequence: str,
      usage: fc.record(
        { input: count, output: count, cacheRead: count, cacheWrite: count },
        { requiredKeys: ['input', 'output'] },
      ),
    },
    { requiredKeys: ['role', 'content', 'stopReason', 'usage'] },
  ),
)
const base = { id, parentId: fc.option(id, { nil: null }), ts: fc.string({ maxLength: 3 }) }
const entry = fc.oneof(
  fc.record({ type: fc.constant('message'), ...base, message }),
  fc.record({
    type: fc.constant('session'),
    version: fc.oneof(fc.integer({ min: -1, max: 3 }), fc.constant(2 ** 60)),
    id: fc.constantFrom('s-1', 'a..b', '', 'ok.id'),
    createdAt: fc.string({ maxLength: 3 }),
  }),
  fc.record(
    { type: fc.constant('custom'), ...base, customType: fc.string({ maxLength: 3 }), data: json },
    { requiredKeys: ['type', 'id', 'parentId', 'ts', 'customType'] },
  ),
  fc.record({
    type: fc.constant('compaction'),
    ...base,
    summary: str,
    firstKeptId: fc.string({ maxLength: 3 }),
  }),
)

/** Every object/array path inside `value`, so a mutation can hit any depth. */
function paths(value: unknown, at: Array<string | number> = []): Array<Array<string | number>> {
  if (typeof value !== 'object' || value === null) return [at]
  const out = [at]
  for (const [k, v] of Object.entries(value))
    out.push(...paths(v, [...at, Array.isArray(value) ? Number(k) : k]))
  return out
}

const mutated = fc
  .tuple(entry, fc.nat(), fc.constantFrom('delete', 'set', 'extra'), json)
  .map(([e, pick, op, replacement]) => {
    const copy = structuredClone(e) as Record<string, unknown>
    const all = paths(copy)
    const path = all[pick % all.length] ?? []
    if (path.length === 0) return copy
    let parent: Record<string | number, unknown> = copy
    for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>
    const last = path[path.length - 1] as string | number
    if (op === 'delete' && !Array.isArray(parent)) delete parent[last]
    else if (op === 'set') parent[last] = replacement
    else if (typeof parent === 'object' && !Array.isArray(parent)) parent.extra = replacement
    return copy
  })

/** What a line holds after a round trip through a file. */
const viaJson = (value: unknown): unknown => JSON.parse(JSON.stringify(value))

describe('isNormalSessionEntry', () => {
  test('property: whatever it accepts, the schema accepts and returns unchanged', () => {
    let accepted = 0
    fc.assert(
      fc.property(fc.oneof(entry, mutated), (raw) => {
        const value = viaJson(raw)
        if (!isNormalSessionEntry(value)) return
        accepted++
        const parsed = SessionEntrySchema.safeParse(value)
        expect(parsed.success).toBe(true)
        expect(parsed.data).toEqual(value)
      }),
      { numRuns: 3000 },
    )
    expect(accepted).toBeGreaterThan(300) // the property is not vacuous
  })

  test('property: it accepts every entry in the form the schema outputs (what append writes)', () => {
    fc.assert(
      fc.property(entry, (raw) => {
        const parsed = SessionEntrySchema.safeParse(viaJson(raw))
        if (!parsed.success) return
        expect(isNormalSessionEntry(viaJson(parsed.data))).toBe(true)
      }),
      { numRuns: 2000 },
    )
  })

  test('turns away near misses so the schema can normalize or reject them', () => {
    const good: SessionEntry = {
      type: 'message',
      id: 'm1',
      parentId: null,
      ts: 't',
      message: {
        role: 'user',
        content: [{ type: 'tool_result', toolCallId: 'c', content: [], isError: false }],
      },
    }
    expect(isNormalSessionEntry(good)).toBe(true)
    const noDefault = viaJson(good) as { message: { content: Array<Record<string, unknown>> } }
    delete noDefault.message.content[0]?.isError
    expect(isNormalSessionEntry(noDefault)).toBe(false)
    expect(isNormalSessionEntry({ ...good, extra: 1 })).toBe(false)
    expect(
      isNormalSessionEntry(
        JSON.parse('{"type":"custom","id":"c","parentId":null,"ts":"t","customType":"x"}'),
      ),
    ).toBe(false)
    expect(isNormalSessionEntry(null)).toBe(false)
    expect(isNormalSessionEntry([good])).toBe(false)
  })
})
