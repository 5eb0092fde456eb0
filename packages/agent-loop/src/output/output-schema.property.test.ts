import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import { outputSpec, parseJsonText, validateOutput } from './output-schema.js'

const Item = z.object({
  id: z.number().int(),
  tags: z.array(z.string()),
  note: z.string().optional(),
})
const item = fc.record(
  { id: fc.integer(), tags: fc.array(fc.string()), note: fc.string() },
  { requiredKeys: ['id', 'tags'] },
)

describe('output schema (property)', () => {
  test('a valid value survives JSON text (bare or fenced) and validation, wrapped or not', () => {
    const objectSpec = outputSpec(Item)
    const listSpec = outputSpec(z.array(Item))
    expect(objectSpec.wrapped).toBe(false)
    expect(listSpec.wrapped).toBe(true)
    fc.assert(
      fc.property(item, fc.array(item), fc.boolean(), (one, many, fenced) => {
        const text = (v: unknown) =>
          fenced ? `Here:\n\`\`\`json\n${JSON.stringify(v)}\n\`\`\`` : JSON.stringify(v)
        const a = parseJsonText(text(one))
        expect(a.ok && validateOutput(objectSpec, a.value)).toEqual({ ok: true, value: one })
        const b = parseJsonText(text({ value: many }))
        expect(b.ok && validateOutput(listSpec, b.value)).toEqual({ ok: true, value: many })
      }),
    )
  })

  test('a value that breaks the schema is refused with the bad path named', () => {
    const spec = outputSpec(Item)
    fc.assert(
      fc.property(
        item,
        fc.oneof(fc.string(), fc.double({ noInteger: true }), fc.constant(null)),
        (one, bad) => {
          const result = validateOutput(spec, { ...one, id: bad })
          expect(result.ok).toBe(false)
          if (!result.ok) expect(result.error).toMatch(/^id: /)
        },
      ),
    )
  })
})
