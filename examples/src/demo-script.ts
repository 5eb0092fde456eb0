import type { ReplySpec, Script, ScriptRequest } from '@contextkit/testkit'
import { DEMO_CONTEXT_FILE, DEMO_SOURCE_FILE } from './demo-workspace.js'

/** The two user turns of the walkthrough, each in its own session. */
export const DEMO_TURNS = [
  {
    sessionId: 'session-1',
    text: `What does ${DEMO_SOURCE_FILE} do with the orders in ${DEMO_CONTEXT_FILE}?`,
  },
  { sessionId: 'session-2', text: 'Morning! Where were we?' },
] as const

/** The first session's final answer ends mid-thought, so resumption has a tail to carry over. */
export const DEMO_FINAL_ANSWER =
  'It splits the file on newlines, skips blank lines and parses each line as JSON; `totalOf` then sums `total`. With the four orders in data/orders.ndjson that is 77.75. One gap: a malformed line throws from JSON.parse and loses the whole file, so next I would'

/** What the emulated model says when it wakes up with its last words in the system prompt. */
export const DEMO_RESUMED_ANSWER =
  ' Picking up where I stopped: wrap JSON.parse per line, collect the bad line numbers, and add a test with one malformed order.'

function instructedPrefix(req: ScriptRequest): string {
  // An emulated model that follows the prefill instruction (models without native prefill).
  const match = /<reply_prefix>\n([\s\S]*?)\n<\/reply_prefix>/.exec(req.lastUserText)
  return match?.[1] ?? ''
}

function hasToolResult(req: ScriptRequest): boolean {
  return req.messages.some((m) => m.content.some((b) => b.type === 'tool_result'))
}

/**
 * The emulated model of the demo and the tests, as a testkit script function: when the system
 * prompt carries a resumption block it answers at once; otherwise it first calls `read_file` on
 * the demo source, then answers from the tool result. With a native prefill the reply is only
 * the continuation (as the API does); asked by instruction, it begins with the prefill itself.
 */
export const demoScript: Script = (req): ReplySpec => {
  const lead = req.prefill === undefined ? instructedPrefix(req) : ''
  if (req.system.includes('Your own last words')) return { text: lead + DEMO_RESUMED_ANSWER }
  if (!hasToolResult(req)) {
    return {
      text: `${lead} First I will read the parser.`,
      toolUse: { name: 'read_file', input: { path: DEMO_SOURCE_FILE } },
    }
  }
  return { text: DEMO_FINAL_ANSWER }
}
