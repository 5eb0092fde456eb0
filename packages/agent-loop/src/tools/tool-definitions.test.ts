// Issue 46: a tool made by defineTool or jsonSchemaTool has one frozen definition, and runs over
// the same such tools share one frozen list whose token estimate is kept from run to run.
import { createTokenCounter, estimateRequestTokens, getModelInfo } from '@contextkit/core'
import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import { isFixedToolList } from '../budget/fixed-tool-lists.js'
import { defaultCounterFor, sharedEstimates } from '../budget/message-estimates.js'
import { type AgentTool, defineTool, toolDefinition } from './define-tool.js'
import { jsonSchemaTool } from './json-schema-tool.js'
import { definitionsOf } from './tool-definitions.js'

const read = defineTool({
  name: 'read',
  description: 'Read a file',
  input: z.object({ path: z.string().describe('Where'), limit: z.number().optional() }),
  execute: ({ path }) => path,
})
const schema = {
  type: 'object',
  properties: { a: { type: 'number' }, b: { type: 'number' } },
  required: ['a', 'b'],
}
const add = jsonSchemaTool<{ a: number; b: number }>({
  name: 'add',
  description: 'Add two numbers',
  inputSchema: schema,
  execute: ({ a, b }) => String(a + b),
})

/** Whether `value` and everything in it is frozen. */
function frozenThrough(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return true
  return Object.isFrozen(value) && Object.values(value).every(frozenThrough)
}

describe('tool definitions', () => {
  test('a defined tool has one definition, frozen through, holding its JSON Schema', () => {
    expect(toolDefinition(read)).toBe(toolDefinition(read))
    expect(frozenThrough(toolDefinition(read))).toBe(true)
    expect(toolDefinition(read).inputSchema).toEqual({
      type: 'object',
      properties: { path: { type: 'string', description: 'Where' }, limit: { type: 'number' } },
      required: ['path'],
    })
    expect(frozenThrough(toolDefinition(add))).toBe(true)
    expect(toolDefinition(add).inputSchema).toEqual(schema)
    // the caller's schema is copied, not frozen
    expect(Object.isFrozen(schema.properties)).toBe(false)
  })

  test('runs over the same tools in the same order share one frozen list; others get their own', () => {
    const first = definitionsOf([read, add], toolDefinition)
    expect(definitionsOf([read, add], toolDefinition)).toBe(first)
    expect(isFixedToolList(first)).toBe(true)
    expect(Object.isFrozen(first)).toBe(true)
    const swapped = definitionsOf([add, read], toolDefinition)
    expect(swapped).not.toBe(first)
    expect(swapped).toEqual([...first].reverse())
    // a tool of the caller's own making (not frozen) is made anew on every run
    const own: AgentTool = { ...read, inputSchema: { type: 'object', properties: {} } }
    const mixed = definitionsOf([read, own], toolDefinition)
    expect(definitionsOf([read, own], toolDefinition)).not.toBe(mixed)
    expect(isFixedToolList(mixed)).toBe(false)
    expect(mixed[1]).toEqual({
      name: 'read',
      description: 'Read a file',
      inputSchema: own.inputSchema,
    })
  })

  test('the loop’s default counter keeps a shared list’s estimate; any other list is counted', () => {
    const counter = defaultCounterFor(getModelInfo('claude-haiku-4-5'))
    const estimates = sharedEstimates(counter)
    const list = definitionsOf([read, add], toolDefinition)
    const fresh = estimateRequestTokens({ tools: [...list] }, counter)
    expect(estimates?.tools(list)).toBe(fresh)
    expect(estimates?.tools(list)).toBe(fresh)
    const changing = [toolDefinition(read)]
    expect(estimates?.tools(changing)).toBe(estimateRequestTokens({ tools: changing }, counter))
    changing.push(toolDefinition(add))
    expect(estimates?.tools(changing)).toBe(fresh)
    expect(estimates?.tools(changing)).not.toBe(
      estimateRequestTokens({ tools: [toolDefinition(read)] }, createTokenCounter()),
    )
  })
})
