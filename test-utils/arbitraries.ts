/**
 * fast-check arbitraries shared by the packages' property tests.
 *
 * `fc.string({ unit: 'binary' })` (fast-check 4.10) builds a table of every code point the first
 * time it is used in a process: about 3 s on an idle machine and over 15 s on a loaded one,
 * paid inside the first property that uses it, which then times out. This one draws the code
 * points as integers: the same strings (any code point, lone surrogate halves included), no
 * start-up cost.
 */
import fc from 'fast-check'

/** Strings of any code points, lone surrogate halves included (like `unit: 'binary'`). */
export function anyCodePoints(
  constraints: { minLength?: number; maxLength?: number } = {},
): fc.Arbitrary<string> {
  return fc
    .array(fc.integer({ min: 0, max: 0x10ffff }), constraints)
    .map((points) => String.fromCodePoint(...points))
}

/** Text that trimming and joining care about: letters, spaces and line breaks, often blank or empty. */
export const blockText: fc.Arbitrary<string> = fc.string({
  unit: fc.constantFrom('a', 'b', ' ', '\n'),
  maxLength: 6,
})

const textBlock = blockText.map((text) => ({ type: 'text' as const, text }))
const imageBlock = fc.constantFrom('AAAA', 'BBBB').map((data) => ({
  type: 'image' as const,
  mediaType: 'image/png' as const,
  data,
}))

/**
 * A content block of each kind core's `ContentBlock` has, the ones formats treat specially
 * (blank text, signed thinking, images inside tool results) included. Typed structurally: the
 * repository root does not install core.
 */
export const contentBlock = fc.oneof(
  { weight: 4, arbitrary: textBlock },
  imageBlock,
  fc.record(
    { type: fc.constant('thinking' as const), thinking: blockText, signature: fc.constant('sig') },
    { requiredKeys: ['type', 'thinking'] },
  ),
  fc.constant({ type: 'redacted_thinking' as const, data: 'opaque' }),
  fc.record({
    type: fc.constant('tool_call' as const),
    id: fc.constantFrom('c1', 'c2'),
    name: fc.constantFrom('read', 'write'),
    input: fc.dictionary(fc.constantFrom('path', 'n'), fc.jsonValue({ maxDepth: 1 }), {
      maxKeys: 2,
    }),
  }),
  fc.record({
    type: fc.constant('tool_result' as const),
    toolCallId: fc.constantFrom('c1', 'c2'),
    content: fc.array(fc.oneof({ weight: 3, arbitrary: textBlock }, imageBlock), {
      maxLength: 2,
    }),
    isError: fc.boolean(),
  }),
)

/**
 * A message as core's `Message` has it: a role, up to four blocks of any kind, sometimes a
 * participant or a cache breakpoint of its own.
 */
export const chatMessage = fc.record(
  {
    role: fc.constantFrom('user' as const, 'assistant' as const),
    content: fc.array(contentBlock, { maxLength: 4 }),
    participant: fc.constantFrom('Alice', 'Bob'),
    cacheBreakpoint: fc.boolean(),
  },
  { requiredKeys: ['role', 'content'] },
)
