import { assertOptions, ContextkitError, describeError, invalidArgument } from '@contextkit/core'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
// types only: importing this entry never loads @modelcontextprotocol/sdk (an optional peer)
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js'
import * as z from 'zod'
import { type AgentTool, DEFAULT_TOOL_TIMEOUT_MS } from '../tools/define-tool.js'
import { jsonSchemaTool } from '../tools/json-schema-tool.js'
import { McpConnectionError, McpRequestError } from './errors.js'
import { mcpResultContent } from './mcp-result.js'

/** What {@link mcpTools} uses of an MCP `Client` (a connected one, stdio or streamable HTTP). */
export type McpClient = Pick<
  Client,
  'listTools' | 'callTool' | 'setNotificationHandler' | 'removeNotificationHandler' | 'transport'
>

/** Which server tools to take: their names (as the server spells them), or a test. */
export type McpToolFilter = readonly string[] | ((tool: Tool) => boolean)

/** What {@link mcpTools} takes besides the client. */
export interface McpToolsOptions {
  /** Only these server tools. Default: all of them. */
  include?: McpToolFilter
  /** Not these server tools (applied after `include`). Default: none. */
  exclude?: McpToolFilter
  /**
   * Put before every tool name the model sees (`github_` → `github_create_issue`), so the tools
   * of several servers cannot clash. Default `''`.
   */
  prefix?: string
  /**
   * Milliseconds a call may take: the loop's tool timeout and the MCP request timeout. Default
   * `DEFAULT_TOOL_TIMEOUT_MS` (10 minutes); `Infinity` for none.
   */
  timeoutMs?: number
  /** Called with the new tools after the server said its list changed and it was listed again. */
  onChange?(tools: readonly AgentTool[]): void
  /** Called when listing again failed (the previous tools stay). Default: ignored. */
  onError?(error: ContextkitError): void
}

/** A server tool left out, and why. */
export interface McpSkippedTool {
  /** The name the server gave it. */
  name: string
  /** Why it was left out. */
  reason: string
}

/** The loop tools of an MCP server, kept up to date while it is open. */
export interface McpToolset {
  /** The tools as last listed; pass them to `runAgent({ tools })`. A new array after a change. */
  readonly tools: readonly AgentTool[]
  /** Tools the server offers that were left out: a name clash or a schema Ajv cannot compile. */
  readonly skipped: readonly McpSkippedTool[]
  /** List the server's tools again now (calls during a listing share it). */
  refresh(): Promise<readonly AgentTool[]>
  /** Stop following the server's list changes (the client stays connected; close it yourself). */
  close(): void
}

const NAME_CHARS = /[^a-zA-Z0-9_-]/g
const MAX_PAGES = 1000
const LIST_CHANGED = 'notifications/tools/list_changed'
/** JSON-RPC error code of the SDK's `ErrorCode.ConnectionClosed`. */
const CONNECTION_CLOSED = -32000
/**
 * The `notifications/tools/list_changed` notification, for `setNotificationHandler` (the SDK
 * takes any zod object schema with a literal `method`, as its own `ToolListChangedNotificationSchema`).
 */
const ListChangedSchema = z.object({
  method: z.literal(LIST_CHANGED),
  params: z.optional(z.looseObject({})),
})
const MAX_TIMER_MS = 2 ** 31 - 1

/** An error of the client as one of ours: connection gone, or the server refused. */
function mcpFailure(error: unknown, client: McpClient, what: string): ContextkitError {
  if (ContextkitError.isInstance(error)) return error
  const code = (error as { code?: unknown } | null)?.code
  const message = `${what}: ${describeError(error)}`
  // a JSON-RPC error has a numeric code (the server answered, or the SDK timed the request out);
  // anything else is the transport failing: not connected, a refused fetch, a broken pipe
  if (typeof code !== 'number' || code === CONNECTION_CLOSED || client.transport === undefined) {
    return new McpConnectionError(message, { cause: error })
  }
  return new McpRequestError(message, {
    cause: error,
    details: { mcpCode: code },
  })
}

function matches(filter: McpToolFilter | undefined, tool: Tool): boolean {
  return typeof filter === 'function' ? filter(tool) : (filter ?? []).includes(tool.name)
}

/** Every tool of the server, page after page. */
async function listAll(client: McpClient): Promise<Tool[]> {
  const tools: Tool[] = []
  let cursor: string | undefined
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await client.listTools(cursor === undefined ? undefined : { cursor })
    tools.push(...result.tools)
    cursor = result.nextCursor
    if (cursor === undefined) break
  }
  return tools
}

/**
 * Whether the server says running `tool` again has no further effect: `idempotentHint: true`,
 * or `readOnlyHint: true` (a tool that changes nothing can run again). Hints only: the server
 * is trusted for them like for its schemas.
 */
function isIdempotent(tool: Tool): boolean {
  return tool.annotations?.idempotentHint === true || tool.annotations?.readOnlyHint === true
}

/** The loop tool calling `tool` on the server. */
function loopTool(client: McpClient, tool: Tool, name: string, timeoutMs: number): AgentTool {
  return jsonSchemaTool<Record<string, unknown>>({
    name,
    description: tool.description ?? tool.title ?? '',
    inputSchema: tool.inputSchema,
    timeoutMs,
    ...(isIdempotent(tool) ? { idempotent: true } : {}),
    async execute(input, { signal }) {
      let result: CallToolResult
      try {
        // the signal is the call's: when the run is aborted or the call times out the SDK sends
        // the server a `notifications/cancelled` for this request
        result = (await client.callTool({ name: tool.name, arguments: input }, undefined, {
          signal,
          timeout: Number.isFinite(timeoutMs) ? timeoutMs : MAX_TIMER_MS,
        })) as CallToolResult
      } catch (error) {
        throw mcpFailure(error, client, `MCP tool "${tool.name}"`)
      }
      return mcpResultContent(result)
    },
  })
}

/** The loop tools for the server's list: filtered, named, compiled; the rest skipped. */
function buildTools(
  client: McpClient,
  listed: readonly Tool[],
  options: McpToolsOptions,
): { tools: AgentTool[]; skipped: McpSkippedTool[] } {
  const tools: AgentTool[] = []
  const skipped: McpSkippedTool[] = []
  const taken = new Map<string, string>()
  for (const tool of listed) {
    if (options.include !== undefined && !matches(options.include, tool)) continue
    if (options.exclude !== undefined && matches(options.exclude, tool)) continue
    const name = `${options.prefix ?? ''}${tool.name.replace(NAME_CHARS, '_')}`.slice(0, 64)
    const clash = taken.get(name)
    if (clash !== undefined) {
      skipped.push({ name: tool.name, reason: `its name "${name}" is taken by "${clash}"` })
      continue
    }
    try {
      tools.push(loopTool(client, tool, name, options.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS))
      taken.set(name, tool.name)
    } catch (error) {
      skipped.push({ name: tool.name, reason: describeError(error) })
    }
  }
  return { tools, skipped }
}

function checkOptions(client: unknown, options: McpToolsOptions): void {
  const c = client as Partial<McpClient> | null
  if (typeof c !== 'object' || c === null || typeof c.listTools !== 'function') {
    invalidArgument('mcpTools', 'client', 'a connected MCP Client', client)
  }
  if (typeof c.callTool !== 'function' || typeof c.setNotificationHandler !== 'function') {
    invalidArgument('mcpTools', 'client', 'a connected MCP Client', client)
  }
  assertOptions(options, 'mcpTools')
  const prefix = options.prefix
  if (
    prefix !== undefined &&
    (typeof prefix !== 'string' || !/^[a-zA-Z0-9_-]{0,48}$/.test(prefix))
  ) {
    invalidArgument('mcpTools', 'options.prefix', 'up to 48 characters of [a-zA-Z0-9_-]', prefix)
  }
  const t = options.timeoutMs
  if (
    t !== undefined &&
    !(typeof t === 'number' && t > 0 && (Number.isInteger(t) || t === Infinity))
  ) {
    invalidArgument('mcpTools', 'options.timeoutMs', 'a positive integer or Infinity', t)
  }
  for (const key of ['include', 'exclude'] as const) {
    const f = options[key]
    if (f !== undefined && typeof f !== 'function' && !Array.isArray(f)) {
      invalidArgument('mcpTools', `options.${key}`, 'a list of tool names or a function', f)
    }
  }
}

/**
 * The tools of a connected MCP client as loop tools: each server tool becomes a
 * `jsonSchemaTool` (its JSON Schema validated with Ajv before the call goes out) whose result is
 * mapped to content blocks (`mcpResultContent`); a server-side failure (`isError`) is a
 * `McpToolError` result, a lost connection (a server that crashed mid-call) a
 * `McpConnectionError` result, and the run goes on. The call's abort signal (run aborted, tool
 * timeout) is forwarded to the server as an MCP cancellation. When the server says its tool list
 * changed, the tools are listed again (`tools` then holds the new list; `onChange` is told).
 * This installs the client's handler for `notifications/tools/list_changed` (replacing any
 * other) until `close()`. Rejects with a typed error when the first listing fails.
 *
 * @example
 * ```ts
 * const client = new Client({ name: 'my-agent', version: '1.0.0' })
 * await client.connect(new StdioClientTransport({ command: 'my-mcp-server' }))
 * const mcp = await mcpTools(client, { prefix: 'fs_', exclude: ['delete_file'] })
 * const run = runAgent({ provider, model, messages, tools: [...mcp.tools] })
 * ```
 */
export async function mcpTools(
  client: McpClient,
  options: McpToolsOptions = {},
): Promise<McpToolset> {
  checkOptions(client, options)
  let current: { tools: readonly AgentTool[]; skipped: readonly McpSkippedTool[] }
  let closed = false
  const list = async () => {
    let listed: Tool[]
    try {
      listed = await listAll(client)
    } catch (error) {
      throw mcpFailure(error, client, 'Listing the MCP tools failed')
    }
    const built = buildTools(client, listed, options)
    current = { tools: Object.freeze(built.tools), skipped: Object.freeze(built.skipped) }
    return current.tools
  }
  await list()
  let running: Promise<readonly AgentTool[]> | undefined
  let again = false
  const refresh = (): Promise<readonly AgentTool[]> => {
    if (running) {
      again = true
      return running
    }
    running = (async () => {
      do {
        again = false
        await list()
      } while (again)
      return current.tools
    })().finally(() => {
      running = undefined
    })
    return running
  }
  client.setNotificationHandler(ListChangedSchema, async () => {
    if (closed) return
    try {
      const tools = await refresh()
      if (!closed) options.onChange?.(tools)
    } catch (error) {
      options.onError?.(mcpFailure(error, client, 'Listing the MCP tools again failed'))
    }
  })
  return {
    get tools() {
      return current.tools
    },
    get skipped() {
      return current.skipped
    },
    refresh,
    close() {
      if (closed) return
      closed = true
      client.removeNotificationHandler(LIST_CHANGED)
    },
  }
}
