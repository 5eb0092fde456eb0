// Test-only: the workload of the worker tests and bench. Each session gets messages `Q[<s>-m<n>]`;
// the scripted model (about 50 ms a call) answers each with one call to `charge`, a tool that is
// not idempotent and records every run in `ck_tool_runs`, then with the text `A[<s>-m<n>]`.

import { defineTool } from '@contextkit/agent-loop'
import { scriptedProvider } from '@contextkit/agent-loop/testing'
import { type Message, textMessage } from '@contextkit/core'
import * as z from 'zod'
import type { WorkerRunOptions } from './options.js'

/** Anything that runs SQL (a pg Pool or Client). */
export interface Sql {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>
}

/** The table the tool writes one row per run to. */
export const TOOL_RUNS_DDL =
  'CREATE TABLE IF NOT EXISTS ck_tool_runs (call_id text NOT NULL, session_id text NOT NULL, at timestamptz NOT NULL DEFAULT now())'
/** The table the model writes one row per call to (the first call of each question, for latency). */
export const MODEL_CALLS_DDL =
  'CREATE TABLE IF NOT EXISTS ck_model_calls (question text NOT NULL, at timestamptz NOT NULL DEFAULT clock_timestamp())'

/** The `n`th message of session `s`. */
export function question(session: string, n: number): Message {
  return textMessage('user', `Q[${session}-m${n}]`)
}

/** Per-call delay that makes each scripted call take about `ms`. */
const CALL_MS = 50

/** The run options of every job: the scripted model and the `charge` tool. */
export function scenarioRun(
  sql: Sql,
  options: { recordCalls?: boolean } = {},
): () => WorkerRunOptions {
  const tool = defineTool({
    name: 'charge',
    description: 'Charge the customer (not idempotent)',
    input: z.object({ q: z.string() }),
    execute: async ({ q }, { toolCallId }) => {
      await sql.query('INSERT INTO ck_tool_runs (call_id, session_id) VALUES ($1, $2)', [
        toolCallId,
        q.replace(/-m\d+$/, ''),
      ])
      await new Promise((r) => setTimeout(r, 10))
      return `charged for ${q}`
    },
  })
  const provider = scriptedProvider(
    (request) => {
      const text = JSON.stringify(request.messages)
      const asked = [...text.matchAll(/Q\[([^\]]+)\]/g)].at(-1)?.[1] ?? '?'
      const last = JSON.stringify(request.messages.at(-1) ?? {})
      if (last.includes('tool_result')) return { text: `A[${asked}]`, delayMs: CALL_MS / 2 }
      if (options.recordCalls)
        void sql
          .query('INSERT INTO ck_model_calls (question) VALUES ($1)', [asked])
          .catch(() => undefined)
      return {
        toolCalls: [{ name: 'charge', input: { q: asked }, id: `call_${asked}` }],
        delayMs: CALL_MS / 4,
      }
    },
    { record: false, chunkChars: 1000 },
  )
  return () => ({ provider, model: 'claude-haiku-4-5', tools: [tool], compaction: false })
}
