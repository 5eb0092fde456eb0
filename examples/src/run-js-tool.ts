import { type AgentTool, defineTool } from '@contextkit/agent-loop'
import { z } from 'zod'
import type { Sandbox } from './context-file-sandbox.js'

/** Name of the tool that runs the model's code. */
export const RUN_JS_TOOL_NAME = 'run_js'

/** The `run_js` tool over `sandbox`; a stopped or failing script becomes an error result. */
export function runJsTool(sandbox: Sandbox): AgentTool<{ code: string }> {
  return defineTool({
    name: RUN_JS_TOOL_NAME,
    description:
      'Run a JavaScript script in the sandbox. It sees __vars (query, context, contextMeta), print(...) and SUBMIT(answer). Returns what it printed.',
    input: z.object({ code: z.string().min(1).describe('The script') }),
    async execute({ code }) {
      const run = await sandbox.run(code)
      const out = run.output === '' ? '(nothing printed)' : run.output
      return run.submitted ? `${out}\nSUBMITTED` : out
    },
  })
}
