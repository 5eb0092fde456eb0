import { type ModelProvider, maxSteps, runAgent } from '@contextkit/agent-loop'
import {
  analyzeContext,
  CONTEXT_METADATA_VARS_KEY,
  type ContextMetadata,
  formatContextHint,
} from '@contextkit/context-metadata'
import { type ContextMiddleware, type Trace, textMessage } from '@contextkit/core'
import {
  FIRST_ITERATION_WITH_METADATA,
  FIRST_ITERATION_WITHOUT_METADATA,
  SUB_CALL_SYSTEM_PROMPT,
  sizeHint,
} from './context-file-prompts.js'
import type { Sandbox } from './context-file-sandbox.js'

/** The part of the metadata the sandbox gets as `__vars.contextMeta`. */
export function sandboxMeta(meta: ContextMetadata): Record<string, unknown> {
  return {
    fileName: meta.fileName,
    format: meta.format,
    contentFormat: meta.contentFormat,
    textKind: meta.textKind,
    lines: meta.lines,
    fields: meta.fields,
    recordCount: meta.recordCount,
  }
}

/** Copy the metadata from `turn.vars` into the sandbox (`__vars.contextMeta`), and report it. */
export function sandboxVars(
  sandbox: Sandbox,
  seen: (meta: ContextMetadata) => void,
): ContextMiddleware {
  return {
    name: 'sandbox-vars',
    async prepare(turn) {
      const meta = turn.vars[CONTEXT_METADATA_VARS_KEY] as ContextMetadata | undefined
      if (meta) {
        seen(meta)
        await sandbox.setVar('contextMeta', sandboxMeta(meta))
      }
      return turn
    },
  }
}

/** With the metadata off: the hint still says where the context is and its size. */
export function sizeHintSection(chars: number): ContextMiddleware {
  return {
    name: 'context-size-hint',
    prepare: (turn) => ({
      ...turn,
      userSections: [
        ...turn.userSections,
        { id: 'rlm:context-size', text: sizeHint(chars), priority: 95, cache: 'stable' },
      ],
    }),
  }
}

/**
 * The first-iteration note, as seed 001 has it: on the first model call only (later calls have
 * seen the context through their scripts) and only when there is a context to look at. Which
 * note depends on whether the metadata made it into the turn.
 */
export function firstIterationNote(contextChars: number): ContextMiddleware {
  return {
    name: 'first-iteration-note',
    prepareStep(turn, _run, info) {
      if (info.step !== 1 || contextChars === 0) return turn
      const has = turn.vars[CONTEXT_METADATA_VARS_KEY] !== undefined
      return {
        ...turn,
        userSections: [
          ...turn.userSections,
          {
            id: 'rlm:first-iteration',
            text: has ? FIRST_ITERATION_WITH_METADATA : FIRST_ITERATION_WITHOUT_METADATA,
            priority: 90,
            cache: 'volatile',
          },
        ],
      }
    },
  }
}

/** What an `llm_query` sub-call needs. */
export interface SubCallDeps {
  provider: ModelProvider
  model: string
  /** The metadata of the whole context, passed down to every sub-call (when there is one). */
  parent: () => ContextMetadata | undefined
  /** Sub-calls a run may make; the next one throws in the script. */
  maxSubCalls: number
  trace?: Trace
  signal?: AbortSignal
}

/**
 * The sandbox's `llm_query(query, context?)`: one model call without tools. Its user turn holds
 * the question, the description of the part it is given (analyzed under the parent's file name,
 * so a chunk of `feed.ndjson` reads as NDJSON) and the description of the whole context it comes
 * from, then the part itself.
 */
export function subCaller(deps: SubCallDeps): (query: string, context?: string) => Promise<string> {
  let calls = 0
  return async (query, context) => {
    if (calls >= deps.maxSubCalls) {
      throw new Error(`the limit of ${deps.maxSubCalls} llm_query calls per run is reached`)
    }
    calls++
    const parent = deps.parent()
    const parts = [query]
    if (context !== undefined) {
      const part = analyzeContext(context, parent?.fileName)
      parts.push(formatContextHint(part, { contextRef: 'the <context> block below' }))
      if (parent) {
        const whole = formatContextHint(parent, { contextRef: null, style: 'inline' })
        parts.push(`It is a part of this context: ${whole}`)
      }
      parts.push(`<context>\n${context}\n</context>`)
    }
    const run = runAgent({
      provider: deps.provider,
      model: deps.model,
      system: SUB_CALL_SYSTEM_PROMPT,
      messages: [textMessage('user', parts.join('\n\n'))],
      stopWhen: [maxSteps(1)],
      maxTokens: 1024,
      ...(deps.trace ? { trace: deps.trace } : {}),
      ...(deps.signal ? { signal: deps.signal } : {}),
    })
    const result = await run.result
    if (result.stopReason === 'error' && result.error) throw result.error
    return result.text
  }
}
