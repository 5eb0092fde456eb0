// mcpTools against a real MCP server (built with the SDK, run as a stdio child process), in runs
// through the real @anthropic-ai/sdk against testkit.
import { existsSync } from 'node:fs'
import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { textMessage, ValidationError } from '@contextkit/core'
import type { ScriptRequest } from '@contextkit/testkit'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { build } from 'esbuild'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { AgentEvent } from '../events/events.js'
import { runAgent } from '../run/run-agent.js'
import { collect, emulated, onCleanup } from '../test-support.js'
import type { AgentTool } from '../tools/define-tool.js'
import { ToolExecutionError, ToolInputError, ToolTimeoutError } from '../tools/errors.js'
import { McpConnectionError, McpToolError } from './errors.js'
import { mcpTools } from './mcp-tools.js'

let dir: string
let server: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mcp-tools-'))
  server = join(dir, 'server.mjs')
  await build({
    entryPoints: [fileURLToPath(new URL('./mcp-server.fixture.ts', import.meta.url))],
    outfile: server,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'silent',
  })
})
afterAll(() => rm(dir, { recursive: true, force: true }))

/** A client connected to a fresh server process; closed at the end of the test. */
async function connect(): Promise<{ client: Client; markers: string }> {
  const markers = await mkdtemp(join(dir, 'markers-'))
  const client = new Client({ name: 'mcp-tools.test', version: '1.0.0' })
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [server, markers],
      stderr: 'pipe',
    }),
  )
  onCleanup(() => client.close())
  return { client, markers }
}

type ToolResultEvent = Extract<AgentEvent, { type: 'tool-result' }>
const toolResults = (events: AgentEvent[]) =>
  events.filter((e): e is ToolResultEvent => e.type === 'tool-result')

/** The tool_result blocks of the last user message of a request. */
function lastResults(req: ScriptRequest): Array<Record<string, unknown>> {
  const last = req.messages.at(-1)
  const content = Array.isArray(last?.content) ? last.content : []
  return content.filter((b) => b.type === 'tool_result') as Array<Record<string, unknown>>
}

async function runWith(tools: readonly AgentTool[], script: Parameters<typeof emulated>[0]) {
  const { provider } = await emulated(script)
  const run = runAgent({
    provider,
    model: 'claude-haiku-4-5',
    messages: [textMessage('user', 'Use the tools')],
    tools: [...tools],
  })
  const events = await collect(run.events)
  return { events, result: await run.result }
}

describe('mcpTools', () => {
  test('lists the server tools with their JSON Schemas; include, exclude and prefix apply', async () => {
    const { client } = await connect()
    const all = await mcpTools(client, { prefix: 'mcp_' })
    expect(all.tools.map((t) => t.name).sort()).toEqual([
      'mcp_crash',
      'mcp_echo',
      'mcp_enable_extra',
      'mcp_fail',
      'mcp_picture',
      'mcp_slow',
      'mcp_stats',
    ])
    const echo = all.tools.find((t) => t.name === 'mcp_echo')
    expect(echo?.description).toBe('Echo the text')
    expect(echo?.inputSchema).toMatchObject({
      type: 'object',
      properties: { text: { type: 'string' } },
      required: ['text'],
    })
    const some = await mcpTools(client, {
      include: ['echo', 'fail', 'stats'],
      exclude: (t) => t.name === 'fail',
    })
    expect(some.tools.map((t) => t.name).sort()).toEqual(['echo', 'stats'])
    // annotations: idempotentHint or readOnlyHint → idempotent (a crashed call is run again)
    const flags = Object.fromEntries(all.tools.map((t) => [t.name, t.idempotent === true]))
    expect(flags).toMatchObject({
      mcp_echo: true, // readOnlyHint: true
      mcp_stats: true, // idempotentHint: true
      mcp_fail: false, // idempotentHint: false
      mcp_picture: false, // no annotations
    })
    expect(some.skipped).toEqual([])
    all.close()
    some.close()
  })

  test('results are mapped (text, image, structured content, isError) in one parallel step', async () => {
    const { client } = await connect()
    const mcp = await mcpTools(client, { prefix: 'mcp_' })
    const seen: Array<Array<Record<string, unknown>>> = []
    const { events, result } = await runWith(mcp.tools, [
      {
        toolUse: [
          { name: 'mcp_echo', input: { text: 'hi' } },
          { name: 'mcp_picture', input: {} },
          { name: 'mcp_stats', input: {} },
          { name: 'mcp_fail', input: {} },
          { name: 'mcp_echo', input: { text: 5 } },
        ],
      },
      (req) => {
        seen.push(lastResults(req))
        return 'Done.'
      },
    ])
    expect(result.stopReason).toBe('end_turn')
    // in call order (results arrive in the order the calls end)
    const order = events.flatMap((e) => (e.type === 'tool-call' ? [e.call.id] : []))
    const [echo, picture, stats, fail, bad] = order.map((id) =>
      toolResults(events).find((r) => r.result.toolCallId === id),
    )
    expect(echo?.result.content).toEqual([{ type: 'text', text: 'echo: hi' }])
    expect(picture?.result.content).toEqual([
      { type: 'text', text: 'a red dot' },
      { type: 'image', mediaType: 'image/png', data: expect.stringMatching(/^iVBOR/) },
    ])
    expect(stats?.result.content).toEqual([{ type: 'text', text: '{"count":3,"unit":"files"}' }])
    expect(fail?.result.isError).toBe(true)
    expect(ToolExecutionError.isInstance(fail?.error)).toBe(true)
    expect(McpToolError.isInstance(fail?.error?.cause)).toBe(true)
    expect(fail?.result.content[0]).toMatchObject({
      text: expect.stringContaining('quota exceeded'),
    })
    // bad input never reaches the server: Ajv refuses it against the server's schema
    expect(ToolInputError.isInstance(bad?.error)).toBe(true)
    expect(bad?.result.content[0]).toMatchObject({ text: expect.stringContaining('text') })
    // what the model got back over the wire: the image as an image block, the error flagged
    const wire = seen[0] ?? []
    expect(wire).toHaveLength(5)
    expect(JSON.stringify(wire)).toContain('"type":"image"')
    expect(wire.filter((b) => b.is_error === true)).toHaveLength(2)
  })

  test('an aborted or timed-out call is cancelled on the server (notifications/cancelled)', async () => {
    const { client, markers } = await connect()
    const mcp = await mcpTools(client, { prefix: 'mcp_', timeoutMs: 300 })
    const { events, result } = await runWith(mcp.tools, [
      { toolUse: { name: 'mcp_slow', input: {} } },
      'It took too long.',
    ])
    expect(result.stopReason).toBe('end_turn')
    expect(ToolTimeoutError.isInstance(toolResults(events)[0]?.error)).toBe(true)
    // the server's own handler saw its request's signal fire
    for (let i = 0; i < 100 && !existsSync(join(markers, 'cancelled-1')); i++) {
      await new Promise((r) => setTimeout(r, 20))
    }
    expect(await readdir(markers)).toEqual(['cancelled-1'])
  })

  test('aborting the run cancels the running call on the server', async () => {
    const { client, markers } = await connect()
    const mcp = await mcpTools(client)
    const { provider } = await emulated([{ toolUse: { name: 'slow', input: {} } }, 'unused'])
    const run = runAgent({
      provider,
      model: 'claude-haiku-4-5',
      messages: [textMessage('user', 'Go')],
      tools: [...mcp.tools],
    })
    for await (const e of run.events) if (e.type === 'tool-call') setTimeout(() => run.abort(), 100)
    expect((await run.result).stopReason).toBe('aborted')
    for (let i = 0; i < 100 && !existsSync(join(markers, 'cancelled-1')); i++) {
      await new Promise((r) => setTimeout(r, 20))
    }
    expect(await readdir(markers)).toEqual(['cancelled-1'])
  })

  test('a server that crashes mid-call gives a typed error result and the run goes on', async () => {
    const { client } = await connect()
    const mcp = await mcpTools(client, { prefix: 'mcp_' })
    const { events, result } = await runWith(mcp.tools, [
      { toolUse: { name: 'mcp_crash', input: {} } },
      { toolUse: { name: 'mcp_echo', input: { text: 'still there?' } } },
      (req) =>
        lastResults(req).every((b) => b.is_error === true) ? 'The server is gone.' : 'unexpected',
    ])
    expect(result.stopReason).toBe('end_turn')
    expect(result.text).toBe('The server is gone.')
    const [crash, after] = toolResults(events)
    for (const r of [crash, after]) {
      expect(r?.result.isError).toBe(true)
      expect(McpConnectionError.isInstance(r?.error?.cause)).toBe(true)
    }
  })

  test('the tools are listed again when the server says its list changed', async () => {
    const { client } = await connect()
    const changes: string[][] = []
    let changed!: () => void
    const once = new Promise<void>((resolve) => {
      changed = resolve
    })
    const mcp = await mcpTools(client, {
      prefix: 'mcp_',
      onChange: (tools) => {
        changes.push(tools.map((t) => t.name))
        changed()
      },
    })
    expect(mcp.tools.map((t) => t.name)).not.toContain('mcp_extra_tool')
    const first = await runWith(mcp.tools, [
      { toolUse: { name: 'mcp_enable_extra', input: {} } },
      'Enabled.',
    ])
    expect(first.result.stopReason).toBe('end_turn')
    await once
    // `extra.tool` is not a valid loop tool name: its dot became `_`
    expect(changes.at(-1)).toContain('mcp_extra_tool')
    expect(mcp.tools.map((t) => t.name)).toContain('mcp_extra_tool')
    const second = await runWith(mcp.tools, [
      { toolUse: { name: 'mcp_extra_tool', input: { n: 21 } } },
      'Got it.',
    ])
    expect(toolResults(second.events)[0]?.result.content).toEqual([
      { type: 'text', text: 'extra 42' },
    ])
    mcp.close()
  })

  test('bad arguments are ValidationErrors naming the argument', async () => {
    await expect(mcpTools(null as never)).rejects.toThrow(/mcpTools: client must be/)
    await expect(mcpTools({ listTools: 5 } as never)).rejects.toThrow(ValidationError)
    const { client } = await connect()
    await expect(mcpTools(client, { prefix: 'a b' })).rejects.toThrow(/options\.prefix/)
    await expect(mcpTools(client, { timeoutMs: -1 })).rejects.toThrow(/options\.timeoutMs/)
    await expect(mcpTools(client, { include: 'echo' as never })).rejects.toThrow(/options\.include/)
  })

  test('a client whose connection is gone fails the listing with McpConnectionError', async () => {
    const { client } = await connect()
    await client.close()
    await expect(mcpTools(client)).rejects.toSatisfy((e) => McpConnectionError.isInstance(e))
  })
})
