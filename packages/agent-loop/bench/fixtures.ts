import { type Message, textMessage } from '@contextkit/core'
import { z } from 'zod'
import type { ProviderRequest } from '../src/provider/contract.js'
import { type ScriptedReply, scriptedProvider } from '../src/testing/scripted-provider.js'
import { type AgentTool, defineTool } from '../src/tools/define-tool.js'

const words =
  'the quick brown fox jumps over the lazy dog while parsing orders from ndjson files '.split(' ')

/** `chars` characters of deterministic prose starting at word `seed` (bench texts). */
export function prose(seed: number, chars: number): string {
  let out = ''
  for (let i = seed; out.length < chars; i++) out += `${words[i % words.length]} `
  return out.trim()
}

/** A 200-message history: user/assistant turns, every fifth assistant turn with a tool call. */
export function history(messages = 200): Message[] {
  const out: Message[] = []
  for (let i = 0; out.length < messages; i++) {
    out.push(textMessage('user', prose(i, 300)))
    if (i % 5 === 4 && out.length + 2 < messages) {
      const id = `toolu_h${i}`
      out.push({
        role: 'assistant',
        content: [
          { type: 'text', text: prose(i + 1, 120) },
          { type: 'tool_call', id, name: 'tool_0', input: { path: `src/file-${i}.ts`, limit: 20 } },
        ],
      })
      out.push({
        role: 'user',
        content: [
          {
            type: 'tool_result',
            toolCallId: id,
            content: [{ type: 'text', text: prose(i + 2, 600) }],
            isError: false,
          },
        ],
      })
    }
    if (out.length < messages) out.push(textMessage('assistant', prose(i + 3, 500)))
  }
  return out.slice(0, messages)
}

/**
 * 20 tools with small zod schemas, made by `define` (this source's `defineTool` unless given: a
 * bench of the built package passes the package's own, whose tools it knows).
 */
export function tools(count = 20, define: typeof defineTool = defineTool): AgentTool[] {
  return Array.from({ length: count }, (_, i) =>
    define({
      name: `tool_${i}`,
      description: `Tool number ${i}: reads a file and returns part of it.`,
      input: z.object({
        path: z.string().describe('Path relative to the workspace'),
        limit: z.number().int().positive().optional(),
      }),
      execute: ({ path }) => `contents of ${path}`,
    }),
  )
}

/**
 * An in-process provider answering at once: `calls - 1` replies with one tool call each (a new
 * input every time), then a text reply. One delta per reply: the model's cost is excluded.
 */
export function instantProvider(calls: number) {
  let n = 0
  return scriptedProvider(
    (_request: ProviderRequest): ScriptedReply => {
      n++
      if (n % calls === 0) return 'Done.'
      return { text: 'Reading.', toolCalls: [{ name: 'tool_3', input: { path: `src/f${n}.ts` } }] }
    },
    { chunkChars: 1_000_000, record: false },
  )
}
