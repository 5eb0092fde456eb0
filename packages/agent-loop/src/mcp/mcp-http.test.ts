// mcpTools over streamable HTTP: a real SDK server on 127.0.0.1, the SDK's HTTP client transport.
import { randomUUID } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { textMessage } from '@contextkit/core'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { expect, test } from 'vitest'
import { z } from 'zod'
import { runAgent } from '../run/run-agent.js'
import { collect, emulated, onCleanup } from '../test-support.js'
import { McpConnectionError } from './errors.js'
import { mcpTools } from './mcp-tools.js'

test('over streamable HTTP: tools listed, called in a run, and a server gone is a typed result', async () => {
  const server = new McpServer({ name: 'http-fixture', version: '1.0.0' })
  server.registerTool(
    'shout',
    { description: 'Upper-case the text', inputSchema: { text: z.string() } },
    async ({ text }) => ({ content: [{ type: 'text', text: text.toUpperCase() }] }),
  )
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID() })
  await server.connect(transport)
  const http = createServer((req, res) => void transport.handleRequest(req, res))
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  const stop = () =>
    new Promise<void>((resolve) => {
      http.closeAllConnections()
      http.close(() => resolve())
    })
  onCleanup(stop)
  const { port } = http.address() as AddressInfo
  const client = new Client({ name: 'mcp-http.test', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)))
  onCleanup(() => client.close())

  const mcp = await mcpTools(client, { prefix: 'web_' })
  expect(mcp.tools.map((t) => t.name)).toEqual(['web_shout'])
  const { provider } = await emulated([
    { toolUse: { name: 'web_shout', input: { text: 'hello' } } },
    'HELLO it is.',
    { toolUse: { name: 'web_shout', input: { text: 'again' } } },
    'The server is down.',
  ])
  const ask = async () => {
    const run = runAgent({
      provider,
      model: 'claude-haiku-4-5',
      messages: [textMessage('user', 'Shout hello')],
      tools: [...mcp.tools],
    })
    const events = await collect(run.events)
    const result = events.flatMap((e) => (e.type === 'tool-result' ? [e] : []))[0]
    return { result, end: await run.result }
  }
  const first = await ask()
  expect(first.result?.result.content).toEqual([{ type: 'text', text: 'HELLO' }])
  expect(first.end.stopReason).toBe('end_turn')

  await stop()
  const second = await ask()
  expect(second.end.stopReason).toBe('end_turn')
  expect(second.result?.result.isError).toBe(true)
  expect(McpConnectionError.isInstance(second.result?.error?.cause)).toBe(true)
})
