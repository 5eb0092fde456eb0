import {
  type AssistantMessage,
  type ContextkitError,
  type Message,
  type ToolCallBlock,
  type TurnContext,
  textMessage,
  textOf,
} from '@contextkit/core'
import type { CallContext, CallSpec } from '../call/call-types.js'
import { callModel } from '../call/model-call.js'
import type { OutputMode } from '../provider/contract.js'
import { OutputValidationError } from './errors.js'
import {
  OUTPUT_TOOL_NAME,
  type OutputSpec,
  outputTool,
  parseJsonText,
  validateOutput,
} from './output-schema.js'

/** The model calls of the output phase: the first, and one repair with the error shown. */
export const OUTPUT_ATTEMPTS = 2

/** What the output phase needs from the run. */
export interface OutputPhaseInput {
  ctx: CallContext
  /** The run's prepared turn. */
  turn: TurnContext
  /** The run's messages as the model sent and sees them, ending in its final reply. */
  sent: readonly Message[]
  /** The step number of the first output call. */
  step: number
  maxTokens: number
  spec: OutputSpec
  mode: OutputMode
}

/** How the output phase ended, with its model calls counted. */
export type OutputPhaseResult = { calls: number } & (
  | { kind: 'done'; value: unknown }
  | { kind: 'failed' | 'aborted'; error: ContextkitError | undefined }
)

function instruction(mode: OutputMode, spec: OutputSpec): Message {
  if (mode === 'tool')
    return textMessage(
      'user',
      `Now give your final answer by calling the ${OUTPUT_TOOL_NAME} tool.`,
    )
  if (mode === 'json-schema')
    return textMessage('user', 'Now give your final answer as JSON in the required format.')
  const schema = JSON.stringify(spec.jsonSchema)
  return textMessage(
    'user',
    `Now give your final answer as one JSON value matching this JSON Schema, and nothing else:\n${schema}`,
  )
}

/** The value the reply gives, checked against the schema. */
function readReply(
  mode: OutputMode,
  spec: OutputSpec,
  reply: AssistantMessage,
): { ok: true; value: unknown } | { ok: false; error: string } {
  if (mode === 'tool') {
    const call = reply.content.find(
      (b): b is ToolCallBlock => b.type === 'tool_call' && b.name === OUTPUT_TOOL_NAME,
    )
    if (!call) return { ok: false, error: `the reply did not call ${OUTPUT_TOOL_NAME}` }
    return validateOutput(spec, call.input)
  }
  const parsed = parseJsonText(textOf(reply))
  return parsed.ok ? validateOutput(spec, parsed.value) : parsed
}

/** The message that shows the model what was wrong (a tool result for its output call). */
function repairMessage(mode: OutputMode, reply: AssistantMessage, error: string): Message {
  const text = `That output is invalid: ${error}. Give the final answer again, corrected.`
  const calls = reply.content.filter((b): b is ToolCallBlock => b.type === 'tool_call')
  if (mode !== 'tool' || calls.length === 0) return textMessage('user', text)
  return {
    role: 'user',
    content: calls.map((c) => ({
      type: 'tool_result' as const,
      toolCallId: c.id,
      isError: true,
      content: [
        {
          type: 'text' as const,
          text:
            c.name === OUTPUT_TOOL_NAME ? text : `Not run: only ${OUTPUT_TOOL_NAME} is taken now.`,
        },
      ],
    })),
  }
}

/** The turn and choice of an output call in `mode`. */
function outputCall(
  input: OutputPhaseInput,
): Pick<CallSpec, 'turn' | 'toolChoice' | 'responseFormat'> {
  const { prefill: _prefill, thinking: _thinking, ...turn } = input.turn
  if (input.mode === 'tool') {
    return {
      turn: { ...turn, tools: [...turn.tools, outputTool(input.spec)] },
      toolChoice: { tool: OUTPUT_TOOL_NAME },
    }
  }
  const format =
    input.mode === 'json-schema'
      ? { responseFormat: { name: OUTPUT_TOOL_NAME, schema: input.spec.jsonSchema } }
      : {}
  return { turn, ...(turn.tools.length > 0 ? { toolChoice: 'none' as const } : {}), ...format }
}

/**
 * The run's final structured output (`runAgent({ output })`), asked for after the model's last
 * reply that called no tool: one call in the provider's {@link OutputMode} (without thinking or
 * prefill), its value validated with the zod schema; when it is invalid, one repair call that
 * shows the model the error, then an {@link OutputValidationError}. The calls are the run's
 * (usage, events), each a step numbered after the final reply's with phase `'output'`, but not
 * saved: the session keeps the conversation.
 */
export async function runOutputPhase(input: OutputPhaseInput): Promise<OutputPhaseResult> {
  const { ctx, spec, mode } = input
  const call = outputCall(input)
  let extra: Message[] = [...input.sent, instruction(mode, spec)]
  let error = ''
  for (let attempt = 0; attempt < OUTPUT_ATTEMPTS; attempt++) {
    const step = input.step + attempt
    ctx.emit({ type: 'step-start', step, phase: 'output' })
    const result = await callModel(ctx, {
      ...call,
      extra,
      opensReply: false,
      maxTokens: input.maxTokens,
      step,
      phase: 'output',
    })
    ctx.emit({ type: 'step-end', step, phase: 'output', message: result.reply })
    if (result.kind === 'aborted') return { kind: 'aborted', error: undefined, calls: attempt + 1 }
    if (result.kind === 'failed') return { kind: 'failed', error: result.error, calls: attempt + 1 }
    const read = readReply(mode, spec, result.reply)
    if (read.ok) return { kind: 'done', value: read.value, calls: attempt + 1 }
    error = read.error
    extra = [...extra, result.reply, repairMessage(mode, result.reply, error)]
  }
  const failure = new OutputValidationError(
    `The final output did not match the output schema after ${OUTPUT_ATTEMPTS} attempts: ${error}`,
    { details: { mode, error, attempts: OUTPUT_ATTEMPTS } },
  )
  return { kind: 'failed', error: failure, calls: OUTPUT_ATTEMPTS }
}
