// What the end-to-end compaction tests share: a 20,000-token window (our model info and the
// emulator's limit agree) and a tool whose results are ~3,000 tokens each, so a run outgrows it.
import { getModelInfo } from '@contextkit/core'
import type { ScriptRequest } from '@contextkit/testkit'
import * as z from 'zod'
import { SUMMARY_SYSTEM_PROMPT } from '../compaction/summarize.js'
import { defineTool } from '../tools/define-tool.js'

/** The context window of the runs. */
export const WINDOW = 20_000
/** Our model info with that window. */
export const model = { ...getModelInfo('claude-sonnet-4-6'), contextWindow: WINDOW }
/** The emulator's models, refusing a prompt over the window. */
export const emulatorModels = [
  { id: 'claude-sonnet-4-6', maxInputTokens: WINDOW, maxTokens: 64_000 },
]

/** ~3,000 tokens for the emulator (⌈chars / 4⌉): 12,000 characters, different per chunk. */
export function chunk(n: number): string {
  const line = `chunk ${n} line: the quick brown fox jumps over the lazy dog near file src/f${n}.ts\n`
  return line.repeat(Math.ceil(12_000 / line.length)).slice(0, 12_000)
}

/** A tool that returns chunk `n`. */
export const readChunk = defineTool({
  name: 'read_chunk',
  description: 'Read one chunk of the log',
  input: z.object({ n: z.number().int() }),
  execute: ({ n }) => chunk(n),
})

/** Whether a scripted request is the default summarizer's call. */
export const isSummaryCall = (r: ScriptRequest) =>
  r.system.startsWith(SUMMARY_SYSTEM_PROMPT.slice(0, 40))

/** A model that reads `steps` chunks with `read_chunk`, then answers; summary calls get a short summary. */
export function chunkReader(steps: number) {
  let agentCalls = 0
  return (r: ScriptRequest) => {
    if (isSummaryCall(r)) return `Summary: reading the log chunk by chunk; ${agentCalls} read.`
    agentCalls++
    if (agentCalls <= steps)
      return {
        text: `Reading ${agentCalls}.`,
        toolUse: { name: 'read_chunk', input: { n: agentCalls } },
      }
    return 'All chunks read.'
  }
}
