/**
 * Requests for the token-estimate and request-fitting tests of core, agent-loop and
 * `@contextkit/ai-sdk`: one real coding-agent exchange, and fast-check arbitraries of requests, so
 * the three suites test the same data. Typed structurally as core's `Message`, `ToolDefinition`,
 * `Section` and `Omission` (the repository root does not install core).
 */
import fc from 'fast-check'

type ImageType = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp'
type Part = { type: 'text'; text: string } | { type: 'image'; mediaType: ImageType; data: string }
/** A core `ContentBlock`. */
export type FixtureBlock =
  | Part
  | { type: 'thinking'; thinking: string; signature?: string }
  | { type: 'redacted_thinking'; data: string }
  | { type: 'tool_call'; id: string; name: string; input: Record<string, unknown>; raw?: string }
  | { type: 'tool_result'; toolCallId: string; content: Part[]; isError: boolean }
/** A core `Message`. */
export interface FixtureMessage {
  role: 'user' | 'assistant'
  content: FixtureBlock[]
}
/** A core `ToolDefinition`. */
export interface FixtureTool {
  name: string
  description: string
  inputSchema: { type: 'object'; [key: string]: unknown }
}
/** A core `Section`. */
export interface FixtureSection {
  id: string
  text: string
  priority: number
  cache: 'stable' | 'volatile'
  shorter?: string[]
  required?: boolean
}
/** A core `Omission`. */
export interface FixtureOmission {
  id: string
  reason: 'shortened' | 'dropped'
  tokensSaved: number
}
/** One model request: core `fitRequest`'s input without the counter. */
export interface FixtureRequest {
  system: FixtureSection[]
  userSections: FixtureSection[]
  omitted: FixtureOmission[]
  messages: FixtureMessage[]
  tools: FixtureTool[]
  contextWindow: number
  maxTokens: number
}

/** A 1×1 PNG, as an agent's screenshot tool returns it (base64). */
const PIXEL_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='

/** The raw XML of a tool call a text tool format parsed (Anthropic's XML function calls). */
const READ_CALL_RAW =
  '<function_calls>\n<invoke name="read_file">\n<parameter name="path">data/orders.csv</parameter>\n<parameter name="limit">20</parameter>\n</invoke>\n</function_calls>'

/**
 * A real exchange of a coding agent (recorded shape, shortened): the user asks about a CSV file;
 * the model thinks (one block signed, one redacted), reads the file with a text-format tool call
 * (kept `raw`), takes a screenshot (a native call, an image in its result), and answers.
 */
export const CODING_EXCHANGE: FixtureMessage[] = [
  {
    role: 'user',
    content: [
      {
        type: 'text',
        text: 'Which region had the most late orders in March? data/orders.csv has them.',
      },
    ],
  },
  {
    role: 'assistant',
    content: [
      {
        type: 'thinking',
        thinking:
          'The file is a CSV. I should read its header and the first rows to find the columns for region, order date and delivery status before counting anything.',
        signature: 'EqQBCkYIBxgCKkBkZXJpdmVkLXNpZ25hdHVyZS1mb3ItdGhlLXRoaW5raW5nLWJsb2Nr',
      },
      {
        type: 'redacted_thinking',
        data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP',
      },
      { type: 'text', text: "I'll look at the file first." },
      {
        type: 'tool_call',
        id: 'toolu_01',
        name: 'read_file',
        input: { path: 'data/orders.csv', limit: 20 },
        raw: READ_CALL_RAW,
      },
    ],
  },
  {
    role: 'user',
    content: [
      {
        type: 'tool_result',
        toolCallId: 'toolu_01',
        content: [
          {
            type: 'text',
            text: 'order_id,region,ordered_at,delivered_at,status\n1001,north,2024-03-02,2024-03-05,on_time\n1002,south,2024-03-02,2024-03-11,late\n1003,south,2024-03-04,2024-03-12,late\n1004,east,2024-03-07,2024-03-08,on_time\n1005,north,2024-03-09,2024-03-19,late',
          },
        ],
        isError: false,
      },
    ],
  },
  {
    role: 'assistant',
    content: [
      { type: 'text', text: 'Let me check the dashboard as well.' },
      { type: 'tool_call', id: 'toolu_02', name: 'screenshot', input: { url: '/dashboard/late' } },
    ],
  },
  {
    role: 'user',
    content: [
      {
        type: 'tool_result',
        toolCallId: 'toolu_02',
        content: [
          { type: 'text', text: 'Screenshot of /dashboard/late (1280×800).' },
          { type: 'image', mediaType: 'image/png', data: PIXEL_PNG },
        ],
        isError: false,
      },
    ],
  },
  {
    role: 'assistant',
    content: [
      {
        type: 'text',
        text: 'South had the most late orders in March: 2 of its 2 orders (1002 and 1003) arrived late; north had 1 of 2.',
      },
    ],
  },
  {
    role: 'user',
    content: [
      { type: 'text', text: 'Here is the chart from the weekly report, does it agree?' },
      { type: 'image', mediaType: 'image/png', data: PIXEL_PNG },
    ],
  },
]

/** The tools of {@link CODING_EXCHANGE}. */
export const CODING_TOOLS: FixtureTool[] = [
  {
    name: 'read_file',
    description: 'Read a text file inside the project, optionally only its first `limit` lines.',
    inputSchema: {
      type: 'object',
      properties: { path: { type: 'string' }, limit: { type: 'integer', minimum: 1 } },
      required: ['path'],
      additionalProperties: false,
    },
  },
  {
    name: 'screenshot',
    description: 'Take a screenshot of a page of the local dashboard.',
    inputSchema: { type: 'object', properties: { url: { type: 'string' } }, required: ['url'] },
  },
]

/** The sections a turn of {@link CODING_EXCHANGE} carries: instructions, bootstrap, hint, files. */
export const CODING_SECTIONS: Pick<FixtureRequest, 'system' | 'userSections'> = {
  system: [
    {
      id: 'instructions',
      text: 'You are a careful data assistant. Read files before answering; cite the rows you used.',
      priority: 100,
      cache: 'stable',
      required: true,
    },
    {
      id: 'bootstrap:AGENTS.md',
      text: '# AGENTS.md\nOrders live in data/. A late order is one delivered more than 5 days after it was ordered.\nNever edit data files.',
      priority: 60,
      cache: 'stable',
      shorter: ['# AGENTS.md\nA late order: delivered over 5 days after ordering.'],
    },
    {
      id: 'resumption',
      text: 'Last session you were comparing late orders by region for March; the report is due Friday.',
      priority: 40,
      cache: 'volatile',
    },
  ],
  userSections: [
    {
      id: 'context-hint',
      text: 'data/orders.csv: 5 columns (order_id, region, ordered_at, delivered_at, status), 5 rows.',
      priority: 50,
      cache: 'volatile',
    },
    {
      id: 'preload:data/regions.json',
      text: '{"north":{"manager":"Ines"},"south":{"manager":"Tomas"},"east":{"manager":"Aiko"},"west":{"manager":"Ravi"}}',
      priority: 20,
      cache: 'volatile',
      shorter: ['{"north":…,"south":…,"east":…,"west":…} (regions.json, 4 keys)'],
    },
  ],
}

const text = fc.oneof(
  fc.string({ maxLength: 80 }),
  fc.lorem({ maxCount: 30 }),
  fc.json({ maxDepth: 2 }),
)
const image = fc.record({
  type: fc.constant('image' as const),
  mediaType: fc.constantFrom<ImageType>('image/png', 'image/jpeg'),
  data: fc.base64String({ maxLength: 24 }),
})
const part = fc.oneof(fc.record({ type: fc.constant('text' as const), text }), image)
/** Any content block, every kind. */
export const blockArb: fc.Arbitrary<FixtureBlock> = fc.oneof(
  part,
  fc.record(
    { type: fc.constant('thinking' as const), thinking: text, signature: fc.base64String() },
    { requiredKeys: ['type', 'thinking'] },
  ),
  fc.record({ type: fc.constant('redacted_thinking' as const), data: fc.base64String() }),
  fc.record(
    {
      type: fc.constant('tool_call' as const),
      id: fc.constantFrom('c1', 'c2', 'c3'),
      name: fc.constantFrom('read_file', 'run', 'x'),
      input: fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), {
        maxKeys: 3,
      }),
      raw: text,
    },
    { requiredKeys: ['type', 'id', 'name', 'input'] },
  ),
  fc.record({
    type: fc.constant('tool_result' as const),
    toolCallId: fc.constantFrom('c1', 'c2', 'c3'),
    content: fc.array(part, { maxLength: 3 }),
    isError: fc.boolean(),
  }),
)
/** Any message. */
export const messageArb: fc.Arbitrary<FixtureMessage> = fc.record({
  role: fc.constantFrom('user' as const, 'assistant' as const),
  content: fc.array(blockArb, { maxLength: 4 }),
})
/** Any tool definition. */
export const toolArb: fc.Arbitrary<FixtureTool> = fc.record({
  name: fc.stringMatching(/^[a-z_]{1,12}$/),
  description: text,
  inputSchema: fc
    .dictionary(fc.stringMatching(/^[a-z]{1,6}$/), fc.constantFrom('string', 'integer'), {
      maxKeys: 3,
    })
    .map((props) => ({
      type: 'object' as const,
      properties: Object.fromEntries(Object.entries(props).map(([k, t]) => [k, { type: t }])),
    })),
})

/** Sections with distinct ids (`required` only when `required` is set). */
function sectionsArb(prefix: string, required: boolean): fc.Arbitrary<FixtureSection[]> {
  const section = fc.record(
    {
      text,
      priority: fc.integer({ min: 0, max: 5 }),
      cache: fc.constantFrom('stable' as const, 'volatile' as const),
      shorter: fc.array(text, { maxLength: 2 }),
      required: required ? fc.boolean() : fc.constant(false),
    },
    { requiredKeys: ['text', 'priority', 'cache'] },
  )
  return fc
    .array(section, { maxLength: 5 })
    .map((list) => list.map((s, n) => ({ id: `${prefix}${n}`, ...s })))
}

/**
 * Any request: sections on both sides (distinct ids), earlier omissions, messages, tools, and a
 * window from tight to roomy. `required` sections only when `options.required` is set.
 */
export function requestArb(options: { required?: boolean } = {}): fc.Arbitrary<FixtureRequest> {
  const required = options.required ?? false
  return fc.record({
    system: sectionsArb('s', required),
    userSections: sectionsArb('u', required),
    omitted: fc.array(
      fc.record({
        id: fc.constantFrom('preload:a.ts', 'preload:b.md'),
        reason: fc.constantFrom('shortened' as const, 'dropped' as const),
        tokensSaved: fc.nat(500),
      }),
      { maxLength: 2 },
    ),
    messages: fc.array(messageArb, { maxLength: 6 }),
    tools: fc.array(toolArb, { maxLength: 3 }),
    contextWindow: fc.integer({ min: 0, max: 20_000 }),
    maxTokens: fc.integer({ min: 0, max: 4_000 }),
  })
}
