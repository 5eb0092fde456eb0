// A real MCP server over stdio for mcp-tools.test.ts (bundled by esbuild, run as a child
// process). argv[2]: a directory where `slow` writes `cancelled-<n>` when its call is cancelled.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { z } from 'zod'

const markers = process.argv[2] ?? '.'
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=='
const server = new McpServer({ name: 'fixture', version: '1.0.0' })
let slowCalls = 0

server.registerTool(
  'echo',
  {
    description: 'Echo the text',
    inputSchema: { text: z.string() },
    annotations: { readOnlyHint: true },
  },
  async ({ text }) => ({ content: [{ type: 'text', text: `echo: ${text}` }] }),
)
server.registerTool('picture', { description: 'A picture' }, async () => ({
  content: [
    { type: 'text', text: 'a red dot' },
    { type: 'image', data: PNG, mimeType: 'image/png' },
  ],
}))
server.registerTool(
  'stats',
  {
    description: 'Counts',
    outputSchema: { count: z.number(), unit: z.string() },
    annotations: { readOnlyHint: false, idempotentHint: true },
  },
  async () => ({ content: [], structuredContent: { count: 3, unit: 'files' } }),
)
server.registerTool(
  'fail',
  { description: 'Always fails', annotations: { idempotentHint: false, destructiveHint: true } },
  async () => ({
    content: [{ type: 'text', text: 'quota exceeded' }],
    isError: true,
  }),
)
server.registerTool('slow', { description: 'Never ends unless cancelled' }, async (extra) => {
  const n = ++slowCalls
  await new Promise<void>((resolve) => {
    extra.signal.addEventListener('abort', () => {
      writeFileSync(join(markers, `cancelled-${n}`), String(extra.requestId))
      resolve()
    })
  })
  return { content: [{ type: 'text', text: 'cancelled' }] }
})
server.registerTool('crash', { description: 'Crashes the server mid-call' }, async () => {
  setTimeout(() => process.exit(3), 20)
  return new Promise(() => undefined)
})
server.registerTool('enable_extra', { description: 'Adds a tool' }, async () => {
  server.registerTool(
    'extra.tool',
    { description: 'Added later', inputSchema: { n: z.number().int() } },
    async ({ n }) => ({ content: [{ type: 'text', text: `extra ${n * 2}` }] }),
  )
  return { content: [{ type: 'text', text: 'enabled' }] }
})

await server.connect(new StdioServerTransport())
