// The AI SDK's own loop (`generateText` with tools) over the same history, tools and replies as
// the loop benches, so `loop.bench.ts` prints our loop beside its peer from one process.
import type { LanguageModelV4GenerateResult } from '@ai-sdk/provider'
import type { Message } from '@contextkit/core'
import {
  type AssistantContent,
  generateText,
  type ModelMessage,
  stepCountIs,
  type ToolSet,
  tool,
} from 'ai'
import { MockLanguageModelV4 } from 'ai/test'
import { z } from 'zod'

/** `messages` as the AI SDK's model messages (text, tool calls and tool results). */
export function toModelMessages(messages: readonly Message[]): ModelMessage[] {
  const names = new Map<string, string>()
  return messages.map((m): ModelMessage => {
    if (m.role === 'assistant') {
      return {
        role: 'assistant',
        content: m.content.flatMap((b): Exclude<AssistantContent, string> => {
          if (b.type === 'text') return [{ type: 'text' as const, text: b.text }]
          if (b.type !== 'tool_call') return []
          names.set(b.id, b.name)
          return [
            { type: 'tool-call' as const, toolCallId: b.id, toolName: b.name, input: b.input },
          ]
        }),
      }
    }
    const results = m.content.filter((b) => b.type === 'tool_result')
    if (results.length === 0) {
      const text = m.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('')
      return { role: 'user', content: text }
    }
    return {
      role: 'tool',
      content: results.map((r) => ({
        type: 'tool-result' as const,
        toolCallId: r.toolCallId,
        toolName: names.get(r.toolCallId) ?? 'tool_0',
        output: {
          type: 'text' as const,
          value: r.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join(''),
        },
      })),
    }
  })
}

/** `count` AI SDK tools with the same names, descriptions, schemas and results as `tools()`. */
export function aiSdkTools(count = 20): ToolSet {
  const set: ToolSet = {}
  for (let i = 0; i < count; i++) {
    set[`tool_${i}`] = tool({
      description: `Tool number ${i}: reads a file and returns part of it.`,
      inputSchema: z.object({
        path: z.string().describe('Path relative to the workspace'),
        limit: z.number().int().positive().optional(),
      }),
      execute: async ({ path }) => `contents of ${path}`,
    })
  }
  return set
}

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
}

/**
 * An in-process model answering at once, as `instantProvider(calls)` does: `calls - 1` replies
 * with one tool call each (a new input every time), then a text reply.
 */
export function instantModel(calls: number): MockLanguageModelV4 {
  let n = 0
  return new MockLanguageModelV4({
    doGenerate: async (): Promise<LanguageModelV4GenerateResult> => {
      n++
      if (n % calls === 0) {
        return {
          content: [{ type: 'text', text: 'Done.' }],
          finishReason: { unified: 'stop', raw: 'end_turn' },
          usage,
          warnings: [],
        }
      }
      return {
        content: [
          { type: 'text', text: 'Reading.' },
          {
            type: 'tool-call',
            toolCallId: `call_${n}`,
            toolName: 'tool_3',
            input: JSON.stringify({ path: `src/f${n}.ts` }),
          },
        ],
        finishReason: { unified: 'tool-calls', raw: 'tool_use' },
        usage,
        warnings: [],
      }
    },
  })
}

/** One `generateText` run of `calls` model calls; throws if it made another number. */
export async function aiSdkRun(
  model: MockLanguageModelV4,
  messages: ModelMessage[],
  tools: ToolSet,
  calls: number,
): Promise<void> {
  const result = await generateText({
    model,
    messages,
    tools,
    stopWhen: stepCountIs(calls),
    maxRetries: 0,
  })
  if (result.steps.length !== calls) {
    throw new Error(`expected ${calls} calls, got ${result.steps.length}`)
  }
}
