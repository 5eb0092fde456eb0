import type { ToolCallBlock, ToolDefinition, ToolResultBlock } from '@contextkit/core'
import { readWithinRoot } from '@contextkit/preload/node'

/** The one tool of the embedded runner: read a UTF-8 text file inside the workspace. */
export const READ_FILE_TOOL: ToolDefinition = {
  name: 'read_file',
  description:
    'Read a UTF-8 text file inside the workspace. `path` is relative to the workspace root.',
  inputSchema: {
    type: 'object',
    properties: { path: { type: 'string', description: 'File path relative to the workspace' } },
    required: ['path'],
  },
}

function result(call: ToolCallBlock, text: string, isError: boolean): ToolResultBlock {
  return { type: 'tool_result', toolCallId: call.id, content: [{ type: 'text', text }], isError }
}

/**
 * Run one tool call. `read_file` goes through preload's `readWithinRoot`, so escapes, symlinks
 * out of the workspace, secrets and binary files are refused; a refusal, a bad input or an
 * unknown tool becomes an error result (the model is told, the turn goes on).
 */
export async function runTool(workspace: string, call: ToolCallBlock): Promise<ToolResultBlock> {
  if (call.name !== READ_FILE_TOOL.name) return result(call, `Unknown tool: ${call.name}`, true)
  const path = call.input.path
  if (typeof path !== 'string' || path === '') {
    return result(call, 'read_file needs a non-empty string `path`', true)
  }
  const read = await readWithinRoot(workspace, path)
  if (!read.ok) return result(call, `${read.error.code}: ${read.error.message}`, true)
  return result(call, read.file.text, false)
}
