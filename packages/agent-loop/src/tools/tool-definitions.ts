// The tool definitions a run sends, made once per tool (issue 46): every run turned each tool into
// a new `ToolDefinition`, so the trace's digest of the tools and their token estimate were made
// again on every run. A tool made by `defineTool` or `jsonSchemaTool` is frozen with a frozen copy
// of its JSON Schema, so its definition cannot change: it is made once, and runs over the same
// such tools in the same order share one frozen list, recorded as never changing
// (`budget/fixed-tool-lists.ts`) for what counts or digests it. Written over core's
// `ToolDefinition` (what a tool is sent as), so `define-tool.ts` may use it without a circle.
import type { ToolDefinition } from '@contextkit/core'
import { markFixedToolList } from '../budget/fixed-tool-lists.js'

/** The frozen definition of each tool that cannot change (see {@link fixDefinition}). */
const definitions = new WeakMap<ToolDefinition, ToolDefinition>()
/** Per first tool, the last list of such tools and their definitions' list. */
const lists = new WeakMap<
  ToolDefinition,
  { tools: readonly ToolDefinition[]; definitions: readonly ToolDefinition[] }
>()

/** `value` as a JSON copy, frozen all the way down (what a provider sends of it). */
export function frozenJson<T>(value: T): T {
  return freeze(JSON.parse(JSON.stringify(value)) as T)
}

function freeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const item of Object.values(value)) freeze(item)
    Object.freeze(value)
  }
  return value
}

/**
 * Record `tool` (frozen, its `inputSchema` a {@link frozenJson} copy) as one whose definition
 * cannot change. Returns the tool.
 */
export function fixDefinition<T extends ToolDefinition>(tool: T): T {
  definitions.set(
    tool,
    Object.freeze({
      name: tool.name,
      description: tool.description,
      inputSchema: tool.inputSchema,
    }),
  )
  return tool
}

/** The recorded definition of `tool`, when it cannot change. */
export function fixedDefinition(tool: ToolDefinition): ToolDefinition | undefined {
  return definitions.get(tool)
}

/**
 * The definitions of `tools` (each made with `make` unless recorded): the same frozen list as
 * the last time for the same tools in the same order when none of them can change.
 */
export function definitionsOf<T extends ToolDefinition>(
  tools: readonly T[],
  make: (tool: T) => ToolDefinition,
): ToolDefinition[] {
  const first = tools[0]
  const last = first === undefined ? undefined : lists.get(first)
  if (
    last !== undefined &&
    last.tools.length === tools.length &&
    last.tools.every((t, i) => t === tools[i])
  ) {
    return last.definitions as ToolDefinition[]
  }
  const made = tools.map((t) => definitions.get(t))
  if (first === undefined || made.some((d) => d === undefined)) return tools.map(make)
  const list = Object.freeze(made as ToolDefinition[])
  markFixedToolList(list)
  lists.set(first, { tools: [...tools], definitions: list })
  return list as ToolDefinition[]
}
