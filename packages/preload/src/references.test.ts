import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { collectReferences } from './references.js'

describe('collectReferences', () => {
  test('nothing in, nothing out', () => {
    expect(collectReferences(null, undefined)).toEqual([])
    expect(collectReferences([], { endpoints: [], models: [] })).toEqual([])
  })

  test("the seed's order: selection, then endpoints, then models, de-duplicated", () => {
    const contexts = [
      { sourceFile: 'src/App.jsx', tagName: 'div', selector: '.a' },
      { sourceFile: 'src/App.jsx', tagName: 'span', selector: '.b' },
      { tagName: 'p' },
      { sourceFile: './src/Card.jsx' },
    ]
    const backendMap = {
      endpoints: [{ method: 'GET', file: 'api/routes.py' }, { file: 'src/Card.jsx' }, {}],
      models: [{ name: 'Task', file: 'api/models.py', line: 1 }, { file: 'api/routes.py' }],
    }
    expect(collectReferences(contexts, backendMap)).toEqual([
      { path: 'src/App.jsx', source: 'selection' },
      { path: 'src/Card.jsx', source: 'selection' },
      { path: 'api/routes.py', source: 'endpoint' },
      { path: 'api/models.py', source: 'model' },
    ])
  })

  test('empty strings and nulls are skipped; invalid paths are kept to be refused later', () => {
    const refs = collectReferences(
      [{ sourceFile: '' }, { sourceFile: null }, { sourceFile: '../etc/passwd' }],
      { models: null },
    )
    expect(refs).toEqual([{ path: '../etc/passwd', source: 'selection' }])
  })

  test('wrong shapes throw a ValidationError naming the field', () => {
    expect(() => collectReferences('nope', null)).toThrow(
      expect.objectContaining({ code: 'validation_error' }),
    )
    try {
      collectReferences([{ sourceFile: 42 }], null)
      expect.unreachable()
    } catch (error) {
      expect((error as { issues: { path: string }[] }).issues[0]!.path).toBe('0.sourceFile')
    }
    expect(() => collectReferences(null, { endpoints: 'x' })).toThrow(
      expect.objectContaining({ code: 'validation_error' }),
    )
  })

  test('property: output is unique and keeps first-seen order', () => {
    const file = fc.constantFrom('a.ts', 'b.ts', './a.ts', 'c/d.py', 'e.css')
    fc.assert(
      fc.property(fc.array(file), fc.array(file), fc.array(file), (sel, eps, models) => {
        const refs = collectReferences(
          sel.map((sourceFile) => ({ sourceFile })),
          { endpoints: eps.map((f) => ({ file: f })), models: models.map((f) => ({ file: f })) },
        )
        const paths = refs.map((r) => r.path)
        expect(new Set(paths).size).toBe(paths.length)
        const all = [...sel, ...eps, ...models].map((p) => p.replace(/^\.\//, ''))
        expect(paths).toEqual([...new Set(all)])
      }),
    )
  })
})
