/** The conversation the buildMessages benches format. */
import type { Message, ToolDefinition } from '@contextkit/core'

export const tools: ToolDefinition[] = [
  {
    name: 'read_file',
    description: 'Read a file of the workspace',
    inputSchema: {
      type: 'object',
      properties: { path: { type: 'string' }, limit: { type: 'integer' } },
      required: ['path'],
    },
  },
]

/** A conversation of `n` messages: questions, answers with thinking and tool calls, results. */
export function conversation(n: number): Message[] {
  const out: Message[] = []
  for (let i = 0; out.length < n; i++) {
    const id = `call_${i}`
    out.push({
      role: 'user',
      content: [{ type: 'text', text: `Question ${i}: what does src/file${i}.ts do?` }],
    })
    out.push({
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: `I should read src/file${i}.ts before answering.` },
        { type: 'text', text: 'Let me read it.' },
        {
          type: 'tool_call',
          id,
          name: 'read_file',
          input: { path: `src/file${i}.ts`, limit: 200 },
        },
      ],
    })
    out.push({
      role: 'user',
      content: [
        {
          type: 'tool_result',
          toolCallId: id,
          content: [{ type: 'text', text: `export const value${i} = ${i} // a < b && c > d` }],
          isError: false,
        },
      ],
    })
    out.push({
      role: 'assistant',
      content: [{ type: 'text', text: `It exports value${i}, a constant set to ${i}.` }],
      ...(i % 50 === 0 ? { cacheBreakpoint: true } : {}),
    })
  }
  return out.slice(0, n)
}
