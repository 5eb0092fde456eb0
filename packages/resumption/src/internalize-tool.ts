import { join } from 'node:path'
import {
  ConfigurationError,
  type JsonSchemaObject,
  parseWith,
  type StateStore,
  type ToolDefinition,
} from '@contextkit/core'
import { createFileReadCache } from '@contextkit/core/node'
import { type StateFileOptions, StateFileOptionsSchema } from '@contextkit/store-files'
import * as z from 'zod'
import { addAnchor } from './capture.js'
import { StoreSchema } from './options.js'
import { emptySelfState, type SelfState } from './self-state.js'
import { type StateAccess, updateState } from './state-access.js'

/** Options of {@link internalizeTool}. */
export interface InternalizeToolOptions extends StateFileOptions {
  /** Where the anchors are kept: the same `store` as the `resumption()` middleware's. */
  store?: StateStore<SelfState>
  /** Key of this agent's state in `store`. Default `default`. */
  agentId?: string
  /** The state file, when no `store` is given (the middleware's `path`). */
  path?: string
  /**
   * The agent's workspace: the state file is then `<workspace>/.contextkit/self-state.json`, the
   * middleware's default, and writes stay inside the workspace. One of `store`, `path` or
   * `workspace` is needed.
   */
  workspace?: string
  /** The tool's name. Default `internalize`. */
  name?: string
  /** Anchors kept in the state, most recent last. Default `5`. */
  maxAnchors?: number
  /** Longest anchor, in UTF-16 units (longer ones are cut at a word). Default `280`. */
  maxChars?: number
}

/** The tool's input: the phrase to keep, and why. */
export const InternalizeInputSchema = z.strictObject({
  phrase: z.string().min(1).describe('The exact words to keep, as you wrote or read them'),
  why: z
    .string()
    .min(1)
    .optional()
    .describe('What makes them worth keeping: insight, decision, user-quote, ...'),
})
/** What the model passes to the internalize tool. */
export type InternalizeInput = z.infer<typeof InternalizeInputSchema>

/**
 * The internalize tool: a core `ToolDefinition` plus its zod `input` and `execute`, the shape
 * agent-loop's `runAgent({ tools })` takes (it is built without importing agent-loop).
 */
export interface InternalizeTool extends ToolDefinition {
  /** Checks the model's input before `execute` sees it. */
  readonly input: typeof InternalizeInputSchema
  /** Add the phrase as the most recent anchor; returns what the model reads back. */
  execute(input: InternalizeInput): Promise<string>
}

const OptionsSchema = StateFileOptionsSchema.extend({
  store: (StoreSchema as z.ZodType<StateStore<SelfState>>).optional(),
  agentId: z.string().min(1).optional(),
  path: z.string().min(1).optional(),
  workspace: z.string().min(1).optional(),
  name: z
    .string()
    .regex(/^[a-zA-Z0-9_-]{1,64}$/)
    .optional(),
  maxAnchors: z.number().int().nonnegative().optional(),
  maxChars: z.number().int().min(2).optional(),
})

const DESCRIPTION =
  'Keep a phrase for your next session. Use it sparingly, for words that carry the thread of ' +
  'your work (a decision, an insight, a line the user said that matters): they come back to you, ' +
  'verbatim, when you wake up in a later session. The most recent few are kept.'

/** The state file options of `options` (the file store refuses any other key). */
function fileOptionsOf(options: InternalizeToolOptions): StateFileOptions {
  const { now, backupPath, lockPath, lockTimeoutMs, staleLockMs, maxBytes, root } = options
  const given = { now, backupPath, lockPath, lockTimeoutMs, staleLockMs, maxBytes, root }
  return Object.fromEntries(
    Object.entries(given).filter(([, v]) => v !== undefined),
  ) as StateFileOptions
}

/** How the tool reaches the state: the store, the file at `path`, or the workspace's file. */
function accessOf(options: InternalizeToolOptions): StateAccess {
  const file =
    options.path ?? (options.workspace && join(options.workspace, '.contextkit', 'self-state.json'))
  if (!options.store && !file) {
    throw new ConfigurationError('internalizeTool needs `store`, `path` or `workspace`')
  }
  const fileOptions = fileOptionsOf(options)
  return {
    store: options.store,
    agentId: options.agentId ?? 'default',
    path: () => file ?? '',
    fileOptions:
      options.path || !options.workspace
        ? fileOptions
        : { ...fileOptions, root: options.workspace },
    // a problem with the state is the tool's error: the model reads it as the tool result
    warn: () => {},
    cache: createFileReadCache({ maxEntries: 1 }),
  }
}

/**
 * The tool the seed calls `internalize`: the model marks a phrase worth keeping, and it is saved
 * (by compare-and-set, like the middleware's saves) as the most recent verbatim anchor with
 * `addAnchor`; the `resumption()` middleware injects the most recent anchors when the agent wakes
 * up. Give it the same `store`, `path` or `workspace` as the middleware and add it to the run's
 * tools. An empty phrase or an unreadable state becomes the tool's error (the model reads it);
 * throws a `ValidationError` for invalid options, a `ConfigurationError` when it has nowhere to
 * keep anchors.
 */
export function internalizeTool(options: InternalizeToolOptions): InternalizeTool {
  parseWith(OptionsSchema, options, 'internalizeTool options')
  const access = accessOf(options)
  const now = options.now ?? Date.now
  const inputSchema = z.toJSONSchema(InternalizeInputSchema, { io: 'input' }) as Record<
    string,
    unknown
  >
  const { $schema: _dialect, ...schema } = inputSchema
  return Object.freeze({
    name: options.name ?? 'internalize',
    description: DESCRIPTION,
    inputSchema: schema as JsonSchemaObject,
    input: InternalizeInputSchema,
    async execute(input: InternalizeInput): Promise<string> {
      const { phrase, why } = parseWith(InternalizeInputSchema, input, 'internalize input')
      const anchor = { raw: phrase, ...(why ? { triggerType: why } : {}) }
      const limits = {
        now,
        ...(options.maxAnchors === undefined ? {} : { max: options.maxAnchors }),
        ...(options.maxChars === undefined ? {} : { maxChars: options.maxChars }),
      }
      const saved = await updateState(
        access,
        (current) => addAnchor(current ?? emptySelfState('internalize', { now }), anchor, limits),
        now,
      )
      const kept = saved.state.verbatimAnchors.at(-1)?.raw ?? phrase
      return `Kept: "${kept}" (${saved.state.verbatimAnchors.length} phrases kept)`
    },
  })
}
