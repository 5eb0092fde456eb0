// Values near the shapes of messages, content blocks, tools and sections, every field sometimes
// wrong: the generators of the properties that hold core's fast input checks (input-checks.ts)
// and its zod-free checks (message-checks.ts) to the zod schemas.
import fc from 'fast-check'
import { MAX_JSON_DEPTH } from './json-depth.js'

/** `{ a: { a: … 1 } }`, `depth` objects deep. */
export function nested(depth: number): Record<string, unknown> {
  let v: Record<string, unknown> = { a: 1 }
  for (let i = 1; i < depth; i++) v = { a: v }
  return v
}

/** Values near the valid shapes, with every field sometimes wrong. */
export const field = fc.oneof(
  fc.constantFrom('', 'x', 'text', 'image', 'thinking', 'tool_call', 'tool_result', 'user'),
  fc.constantFrom('assistant', 'image/png', 'image/bmp', 'stable', 'volatile', 'object', 'a b'),
  fc.constantFrom('before', 'after', 'middle', 'redacted_thinking'),
  fc.constantFrom(true, false, 0, 1.5, Number.NaN, Number.POSITIVE_INFINITY, null, undefined),
  fc.constantFrom([], {}, [''], { type: 'object' }, new Date(0), Object.create(null)),
)
/** An object with some of `keys`, each holding a near value or a short list of them. */
export const obj = (keys: string[]) =>
  fc.dictionary(fc.constantFrom(...keys), fc.oneof(field, fc.array(field, { maxLength: 2 })), {
    maxKeys: keys.length,
  })
/** The keys content blocks have between them. */
export const blockKeys = [
  'type',
  'text',
  'mediaType',
  'data',
  'thinking',
  'signature',
  'id',
  'name',
]
/** A content block: any mix of block keys, or a tool result or tool call nearly right. */
export const block = fc.oneof(
  obj([...blockKeys, 'input', 'raw', 'toolCallId', 'content', 'isError']),
  fc.record({
    type: fc.constant('tool_result'),
    toolCallId: fc.constantFrom('c', ''),
    content: fc.array(obj(blockKeys), { maxLength: 2 }),
    isError: fc.constantFrom(true, undefined, 'no'),
  }),
  fc.record({
    type: fc.constant('tool_call'),
    id: fc.constantFrom('c', ''),
    name: fc.constant('t'),
    input: fc.constantFrom(
      {},
      { a: 1 },
      [],
      null,
      new Date(0),
      Object.create(null),
      nested(MAX_JSON_DEPTH),
      nested(MAX_JSON_DEPTH + 1),
    ),
  }),
)
/** A message: any mix of message keys over blocks, or a role and blocks. */
export const message = fc.oneof(
  obj(['role', 'participant', 'cacheBreakpoint']).chain((m) =>
    fc.array(block, { maxLength: 3 }).map((content) => ({ ...m, content })),
  ),
  fc.record({
    role: fc.constantFrom('user', 'assistant'),
    content: fc.array(block, { maxLength: 3 }),
  }),
)
