// mcpTools against the official filesystem MCP server (@modelcontextprotocol/server-filesystem,
// run over stdio as a child process): its read_media_file answers with an image block and
// structuredContent holding the same image; the model gets the image once, never its base64 as text.

import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { textMessage } from '@contextkit/core'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { expect, test } from 'vitest'
import { runAgent } from '../run/run-agent.js'
import { emulated, onCleanup } from '../test-support.js'
import { mcpTools } from './mcp-tools.js'

const require = createRequire(import.meta.url)
const serverBin = join(
  require.resolve('@modelcontextprotocol/server-filesystem/package.json'),
  '..',
  'dist',
  'index.js',
)

/** A PNG of `bytes` bytes: a valid signature and header, then filler. */
function png(bytes: number): Buffer {
  const head = Buffer.from(
    '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489',
    'hex',
  )
  const body = Buffer.alloc(bytes - head.length)
  for (let i = 0; i < body.length; i++) body[i] = (i * 131 + 7) % 256
  return Buffer.concat([head, body])
}

test('read_media_file of the official filesystem server: the image reaches the model once, no base64 as text', {
  timeout: 120_000,
}, async () => {
  const dir = await mkdtemp(join(tmpdir(), 'mcp-fs-'))
  onCleanup(() => rm(dir, { recursive: true, force: true }))
  const picture = png(120_000)
  await writeFile(join(dir, 'picture.png'), picture)
  const client = new Client({ name: 'mcp-filesystem.test', version: '1.0.0' })
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [serverBin, dir], stderr: 'pipe' }),
  )
  onCleanup(() => client.close())
  // the server's own answer holds the image twice: as a block and in structuredContent
  const raw = await client.callTool({
    name: 'read_media_file',
    arguments: { path: join(dir, 'picture.png') },
  })
  const base64 = picture.toString('base64')
  expect(JSON.stringify(raw.content)).toContain(base64)
  expect(JSON.stringify(raw.structuredContent)).toContain(base64)

  const mcp = await mcpTools(client, { include: ['read_media_file'] })
  onCleanup(() => mcp.close())
  const { provider, emulator } = await emulated([
    { toolUse: { name: 'read_media_file', input: { path: join(dir, 'picture.png') } } },
    'A picture.',
  ])
  const run = runAgent({
    provider,
    model: 'claude-haiku-4-5',
    messages: [textMessage('user', 'What is in picture.png?')],
    tools: [...mcp.tools],
  })
  expect((await run.result).text).toBe('A picture.')
  const second = emulator.requests.filter((r) => r.path === '/v1/messages')[1]
  const body = second?.body as { messages: Array<{ content: unknown }> }
  const last = (body.messages.at(-1)?.content ?? []) as Array<Record<string, unknown>>
  const results = last.filter((b) => b.type === 'tool_result')
  expect(results).toHaveLength(1)
  const blocks = results[0]?.content as Array<Record<string, unknown>>
  // the image once, as an image; no text block at all (nothing the image does not carry)
  expect(blocks.map((b) => b.type)).toEqual(['image'])
  expect(blocks[0]).toMatchObject({
    source: { type: 'base64', media_type: 'image/png', data: base64 },
  })
  // the whole request carries the base64 exactly once
  expect(JSON.stringify(body).split(base64)).toHaveLength(2)
  // the emulator's token count of the call: the image's tokens, not 160,000 characters of text
  expect(JSON.stringify(body).length).toBeLessThan(base64.length + 20_000)
})
