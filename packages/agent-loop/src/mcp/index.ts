// @contextkit/agent-loop/mcp: the tools of an MCP server as loop tools. Loads
// `@modelcontextprotocol/sdk` (an optional peer); the root entry never does. Pure: give it a
// connected client (stdio, streamable HTTP, in-memory), the transport is yours.
export { McpConnectionError, McpRequestError, McpToolError } from './errors.js'
export type { McpResultBlock } from './mcp-result.js'
export { mcpResultContent } from './mcp-result.js'
export type {
  McpClient,
  McpSkippedTool,
  McpToolFilter,
  McpToolset,
  McpToolsOptions,
} from './mcp-tools.js'
export { mcpTools } from './mcp-tools.js'
