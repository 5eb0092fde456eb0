import { type AgentTool, defineTool } from '@contextkit/agent-loop'
import { readWithinRoot } from '@contextkit/preload/node'
import { z } from 'zod'

/** Name of the embedded runner's one tool. */
export const READ_FILE_TOOL_NAME = 'read_file'

/** Input of `read_file`. */
export interface ReadFileInput {
  path: string
}

/**
 * The one tool of the embedded runner: read a UTF-8 text file inside `workspace`, through
 * preload's `readWithinRoot`, so escapes, symlinks out of the workspace, secrets and binary files
 * are refused. A refusal throws, which the loop turns into an error result naming its code
 * (`preload_path_outside_root: …`): the model is told and the turn goes on.
 */
export function readFileTool(workspace: string): AgentTool<ReadFileInput> {
  return defineTool({
    name: READ_FILE_TOOL_NAME,
    description:
      'Read a UTF-8 text file inside the workspace. `path` is relative to the workspace root.',
    input: z.object({
      path: z.string().min(1).describe('File path relative to the workspace'),
    }),
    async execute({ path }) {
      const read = await readWithinRoot(workspace, path)
      if (!read.ok) throw new Error(`${read.error.code}: ${read.error.message}`)
      return read.file.text
    },
  })
}
