import { formatCount } from '@contextkit/context-metadata'
import { RUN_JS_TOOL_NAME } from './run-js-tool.js'

/** The system prompt of the recursive (REPL) agent. */
export const RLM_SYSTEM_PROMPT = `You answer a question about data too large to read whole. The data is in \`__vars.context\` inside a JavaScript sandbox (QuickJS: plain synchronous JavaScript; no modules, no network, no file system).

Work in iterations: call the ${RUN_JS_TOOL_NAME} tool with a script and read what it printed with \`print(...)\`. Globals you define stay for the next script. When you know the answer, call \`SUBMIT(answer)\` in a script.

For a part of the data that needs reading rather than counting (a summary, a judgement), \`llm_query(question, text)\` asks a model about \`text\` and returns its answer as a string; the script waits for it. Give it pieces small enough to read, not the whole context.

## Variable space
\`__vars.query\` holds the question and \`__vars.context\` the data (a string). When a description of the data was given, \`__vars.contextMeta\` holds it as an object (format, fields, lines, recordCount) and the user turn shows it. Look at the data through code, never by guessing. For example:
\`\`\`js
print(JSON.stringify(__vars.contextMeta)) // the description, when there is one
print(__vars.context.length)              // how big the data is
print(__vars.context.slice(0, 400))       // how it starts
\`\`\``

/** The first-iteration note when the metadata is there: go straight to work. */
export const FIRST_ITERATION_WITH_METADATA =
  'You have not seen the full context yet. Use the description above and `__vars.contextMeta` for its shape, and start processing in your first script.'

/** The first-iteration note without metadata: look before you process. */
export const FIRST_ITERATION_WITHOUT_METADATA =
  'You have not seen the context yet. Explore its format with a first script (size, a peek at the start) before processing it.'

/** The system prompt of an `llm_query` sub-call: one answer, from the text it is given. */
export const SUB_CALL_SYSTEM_PROMPT =
  'You answer one question about the text given with it, briefly and from that text only. The text is a part of a larger context; its description says what it is.'

/** The last call's request when the scripts ended without `SUBMIT`: answer from what you saw. */
export const EXTRACT_PROMPT =
  'You have used all your scripts without calling SUBMIT. Do not write code now: give your final answer to the question, in plain text, from what the scripts printed so far. If it is an estimate or partial, say so in one short sentence after it.'

/**
 * The hint when the metadata is off: only the size, as seed 001's starting point had it
 * (`[Context available in __vars.context (N chars)]`).
 */
export function sizeHint(chars: number): string {
  return `[Context available in __vars.context (${formatCount(chars)} ${chars === 1 ? 'char' : 'chars'})]`
}
