import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import { defineTool } from './define-tool.js'
import { ToolOutputError } from './errors.js'
import { runToolCalls } from './run-tools.js'

async function outcomeOf(value: () => unknown) {
  const tool = defineTool({
    name: 't',
    description: 'Returns a value',
    input: z.object({}),
    execute: () => value() as string,
  })
  const [outcome] = await runToolCalls([{ type: 'tool_call', id: 'c', name: 't', input: {} }], {
    tools: new Map([['t', tool]]),
    signal: new AbortController().signal,
    runId: 'r',
    concurrency: 1,
  })
  return outcome!
}

describe('what a tool returns is sent faithfully, or the call is an error', () => {
  const cyclic: Record<string, unknown> = { a: 1 }
  cyclic.self = cyclic
  const cases: Array<[string, () => unknown]> = [
    ['a cyclic object', () => cyclic],
    [
      'a throwing toJSON',
      () => ({
        toJSON: () => {
          throw new Error('no')
        },
      }),
    ],
    ['a function', () => () => 'source code'],
    ['a symbol', () => Symbol('s')],
    ['a WeakMap', () => ({ cache: new WeakMap([[{}, 'secret']]) })],
    ['a WeakSet', () => new WeakSet([{}])],
    [
      'an image that is not base64',
      () => [{ type: 'image', mediaType: 'image/png', data: 'not base64!' }],
    ],
  ]
  for (const [name, value] of cases) {
    test(`${name}: an error result, typed, with nothing of the value sent`, async () => {
      const outcome = await outcomeOf(value)
      expect(outcome.result.isError).toBe(true)
      expect(ToolOutputError.isInstance(outcome.error)).toBe(true)
      const text = JSON.stringify(outcome.result.content)
      expect(text).not.toContain('[object Object]')
      expect(text).not.toContain('source code')
      expect(text).not.toContain('not base64!')
    })
  }

  test('values that can be sent still are: shared (not cyclic) objects, bigints, base64 images', async () => {
    const shared = { x: 1 }
    const ok = await outcomeOf(() => ({ a: shared, b: shared, n: 10n }))
    expect(ok.result.isError).toBe(false)
    expect(ok.result.content).toEqual([
      { type: 'text', text: '{"a":{"x":1},"b":{"x":1},"n":"10"}' },
    ])
    const image = await outcomeOf(() => [
      { type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
    ])
    expect(image.result.isError).toBe(false)
  })

  test('a Map is sent as its [key, value] entries and a Set as its values, at any depth', async () => {
    const result = async (value: unknown) => {
      const outcome = await outcomeOf(() => value)
      expect(outcome.result.isError).toBe(false)
      return outcome.result.content
    }
    expect(
      await result(
        new Map<unknown, unknown>([
          ['a', 1],
          [1, 'one'],
          ['1', 'string one'],
        ]),
      ),
    ).toEqual([{ type: 'text', text: '[["a",1],[1,"one"],["1","string one"]]' }])
    expect(await result(new Set(['x', 2, 2n]))).toEqual([{ type: 'text', text: '["x",2,"2"]' }])
    const nested = {
      tags: new Set(['a', 'b']),
      byId: new Map([[7, { seen: new Set([1]) }]]),
      empty: [new Map(), new Set()],
    }
    expect(await result(nested)).toEqual([
      {
        type: 'text',
        text: '{"tags":["a","b"],"byId":[[7,{"seen":[1]}]],"empty":[[],[]]}',
      },
    ])
  })
})
