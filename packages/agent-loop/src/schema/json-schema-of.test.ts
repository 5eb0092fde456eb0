import { expect, test } from 'vitest'
import * as z from 'zod'
import * as zm from 'zod/mini'
import { jsonSchemaOf } from './json-schema-of.js'
import { zodNow as zodInNode } from './lazy-zod.node-build.js'

test("a schema converts itself (zod ≥ 4.2) exactly as zod's toJSONSchema converts it", () => {
  const schema = z.object({
    city: z.string().describe('where'),
    days: z.number().int().default(1),
    when: z.date(),
  })
  expect(jsonSchemaOf(schema, { io: 'input', unrepresentable: 'any' })).toEqual(
    z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }),
  )
  expect(() => jsonSchemaOf(schema, { io: 'input' })).toThrow()
})

test('a schema without the method (zod/mini, zod before 4.2) is converted by zod itself', () => {
  const schema = zm.object({ q: zm.string(), n: zm.optional(zm.number()) })
  expect('toJSONSchema' in schema).toBe(false)
  expect(jsonSchemaOf(schema as never, { io: 'input' })).toEqual(
    z.toJSONSchema(schema, { io: 'input' }),
  )
})

test("the Node build's zod is loaded on first use, and is the application's zod", () => {
  const zod = zodInNode()
  expect(zod.object({})).toBeInstanceOf(z.ZodType)
  expect(zod.toJSONSchema).toBe(z.toJSONSchema)
  expect(zodInNode()).toBe(zod)
})
