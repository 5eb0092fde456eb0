import type Anthropic from '@anthropic-ai/sdk'
import type { AssistantMessage, Message, RunInfo, TurnContext } from '@contextkit/core'
import {
  AnthropicXmlFormatter,
  type FormattedRequest,
  NativeFormatter,
  type PrefillFormatter,
} from '@contextkit/formatters'
import { ensurePrefillInContent } from '@contextkit/prefill'
import type { PrefillMiddleware } from '@contextkit/prefill/node'
import { type StreamParams, toStreamParams } from './anthropic-request.js'
import { runTool } from './read-file-tool.js'
import { streamReply } from './stream-reply.js'
import { messagesWithUserSections } from './turn-budget.js'
import { RUNNER_STAGES } from './turn-steps.js'

/** Which prompt format renders the requests. */
export type FormatterChoice = 'xml' | 'native'

/**
 * The formatter for a model: the transcript format (`AnthropicXmlFormatter`, native tools) by
 * default, `NativeFormatter` when asked for — or when the format needs a prefilled assistant turn
 * (`usesPrefill`) and the model cannot take one.
 */
export function pickFormatter(
  choice: FormatterChoice,
  supportsPrefill: boolean,
): { formatter: PrefillFormatter; reason: string } {
  if (choice === 'native') return { formatter: new NativeFormatter(), reason: 'requested' }
  const xml = new AnthropicXmlFormatter({ toolMode: 'native' })
  if (xml.usesPrefill && !supportsPrefill) {
    return {
      formatter: new NativeFormatter(),
      reason: 'the transcript format ends in an assistant turn; this model rejects prefill',
    }
  }
  return { formatter: xml, reason: 'requested' }
}

/** Inputs of {@link runModelLoop}. */
export interface ModelLoopInput {
  client: Anthropic
  turn: TurnContext
  run: RunInfo
  workspace: string
  formatter: FormatterChoice
  prefill: PrefillMiddleware
  maxTokens: number
  maxModelCalls: number
}

/** What the loop produced. */
export interface ModelLoopResult {
  /** The turn the last request was built from (the recovered one after a prefill rejection). */
  turn: TurnContext
  /** Model replies in order, as the model produced them (a native prefill included). */
  replies: AssistantMessage[]
  /** Replies and tool-result messages, in conversation order. */
  produced: Message[]
  requests: StreamParams[]
  recovered: boolean
}

function describeRequest(request: FormattedRequest, params: StreamParams, formatter: string) {
  const last = params.messages[params.messages.length - 1]
  return {
    formatter,
    model: params.model,
    maxTokens: params.max_tokens,
    system: request.system.map((b) => b.text.length),
    messages: params.messages.map((m) => m.role),
    endsWith: last?.role,
    assistantPrefill: request.assistantPrefill,
    stopSequences: request.stopSequences,
    tools: request.nativeTools?.map((t) => t.name) ?? [],
    cacheMarkers: request.cacheMarkersApplied,
    warnings: request.warnings.map((w) => w.code),
  }
}

/**
 * Steps 7–9: render the turn, stream the reply through the formatter's parser, run tool calls
 * and feed their results back, until a reply has no tool call or `maxModelCalls` is reached.
 * The ephemeral prefill goes with the first call only (later calls continue from the model's own
 * words). When the provider answers the no-prefill 400, the prefill middleware's `recover` gives
 * the turn to retry with (once), and requests switch to a format without an assistant turn.
 */
export async function runModelLoop(input: ModelLoopInput): Promise<ModelLoopResult> {
  const { client, run, workspace, maxTokens } = input
  let turn = input.turn
  let picked = pickFormatter(input.formatter, turn.model.supportsPrefill)
  let base = messagesWithUserSections(turn)
  let prefill = turn.prefill
  let recovered = false
  const replies: AssistantMessage[] = []
  const produced: Message[] = []
  const requests: StreamParams[] = []
  for (let call = 1; call <= input.maxModelCalls; call++) {
    const { formatter } = picked
    const request = formatter.buildMessages([...base, ...produced], {
      system: turn.system,
      tools: turn.tools,
      ...(prefill ? { prefill } : {}),
    })
    const params = toStreamParams(request, turn.model.id, maxTokens)
    requests.push(params)
    run.trace.record(RUNNER_STAGES.request, {
      call,
      formatterReason: picked.reason,
      ...describeRequest(request, params, formatter.name),
    })
    let reply: AssistantMessage
    try {
      const parser = formatter.createStreamParser({ tools: turn.tools })
      const streamed = await streamReply(
        client,
        params,
        parser,
        request.assistantPrefill,
        run.signal,
      )
      reply = streamed.message
      if (streamed.incompleteCalls > 0) {
        run.trace.record('warning', {
          source: 'runner',
          code: 'incomplete_tool_call',
          message: `${streamed.incompleteCalls} tool call(s) cut off by the end of the stream`,
        })
      }
    } catch (error) {
      const retry =
        !recovered && prefill !== undefined ? input.prefill.recover(error, turn, run) : undefined
      if (!retry) throw error
      recovered = true
      turn = retry
      base = messagesWithUserSections(turn)
      prefill = turn.prefill
      picked = pickFormatter(input.formatter, false)
      run.trace.record(RUNNER_STAGES.retry, { call, formatter: picked.formatter.name })
      call-- // the retry is the same model call; `recovered` bounds it to once
      continue
    }
    // A native prefill is part of what the model said; finalize strips it before saving.
    if (prefill) reply = { ...reply, content: ensurePrefillInContent(reply.content, prefill) }
    prefill = undefined
    replies.push(reply)
    produced.push(reply)
    const calls = reply.content.filter((b) => b.type === 'tool_call')
    run.trace.record(RUNNER_STAGES.reply, {
      call,
      stopReason: reply.stopReason,
      blocks: reply.content.map((b) => b.type),
      toolCalls: calls.map((c) => c.name),
      usage: reply.usage,
    })
    if (calls.length === 0) break
    const results = []
    for (const c of calls) {
      const result = await runTool(workspace, c)
      results.push(result)
      run.trace.record(RUNNER_STAGES.tool, {
        call,
        tool: c.name,
        input: c.input,
        isError: result.isError,
        chars: result.content.reduce((n, b) => n + (b.type === 'text' ? b.text.length : 0), 0),
      })
    }
    produced.push({ role: 'user', content: results })
    if (call === input.maxModelCalls) {
      run.trace.record(RUNNER_STAGES.limit, { maxModelCalls: input.maxModelCalls })
    }
  }
  return { turn, replies, produced, requests, recovered }
}
