import { AgentLoopError } from '../provider/errors.js'

/**
 * The MCP server answered a tool call with `isError: true`: the tool ran and failed. The
 * message is the text the server sent; the model sees it as the error result. Code
 * `agent_loop_mcp_tool_error`.
 */
export class McpToolError extends AgentLoopError {
  /** The `code` of every error of this class: `agent_loop_mcp_tool_error`. */
  static override readonly code: string = 'agent_loop_mcp_tool_error'
}

/**
 * The connection to the MCP server is gone (the server process exited or crashed mid-call, the
 * transport was closed, an HTTP server cannot be reached) or was never open. The call becomes an error result and the run goes
 * on. Code `agent_loop_mcp_connection`.
 */
export class McpConnectionError extends AgentLoopError {
  /** The `code` of every error of this class: `agent_loop_mcp_connection`. */
  static override readonly code: string = 'agent_loop_mcp_connection'
}

/**
 * The MCP server refused a request (a JSON-RPC error: unknown tool, invalid params, an internal
 * error), or did not answer in time. `details.mcpCode` holds the JSON-RPC error code. Code
 * `agent_loop_mcp_request`.
 */
export class McpRequestError extends AgentLoopError {
  /** The `code` of every error of this class: `agent_loop_mcp_request`. */
  static override readonly code: string = 'agent_loop_mcp_request'
}
