import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { analyzeContext } from './analyze-context.js'
import { analyzeFile } from './analyze-file.js'
import { formatContextHint } from './hint.js'

let dir: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ctxmeta-json-'))
})
afterAll(() => {
  rmSync(dir, { recursive: true, force: true })
})

/** A TopoJSON-shaped document whose `arcs` run far past the sniff window. */
function topology(arcs: number): string {
  return JSON.stringify({
    type: 'Topology',
    objects: {
      countries: { type: 'GeometryCollection', geometries: [{ type: 'Polygon', arcs: [[0]] }] },
      land: { type: 'GeometryCollection', geometries: [] },
    },
    arcs: Array.from({ length: arcs }, (_, i) => [
      [i, i + 1],
      [1, -1],
    ]),
    bbox: [-180, -85.6, 180, 83.6],
    transform: { scale: [0.0036, 0.0017], translate: [-180, -85.6] },
  })
}

describe('JSON objects are described over the whole text', () => {
  test('keys after the sniff window are seen: bbox, transform, arcs (string and file)', async () => {
    const text = topology(20000)
    expect(text.length).toBeGreaterThan(5 * 65536)
    const path = join(dir, 'world.json')
    writeFileSync(path, text)
    for (const meta of [analyzeContext(text, 'world.json'), await analyzeFile(path)]) {
      expect(meta.format).toBe('json')
      expect(meta.fields).toEqual([
        'type',
        'objects',
        'arcs',
        'bbox',
        'transform',
        'objects.countries',
        'objects.land',
        'transform.scale',
        'transform.translate',
      ])
      expect(meta.valueArrays).toEqual([
        { key: 'arcs', count: 20000, elements: 'arrays' },
        { key: 'bbox', count: 4, elements: 'numbers' },
      ])
      expect(meta.sampleRecord?.startsWith('{"type":"Topology","objects":{')).toBe(true)
    }
    const hint = formatContextHint(analyzeContext(text, 'world.json'))
    expect(hint).toContain('  Array "bbox": 4 numbers')
    expect(hint).toContain('  Array "arcs": 20,000 arrays')
  })

  test('a wrapper with a huge list: the count after it is seen and a page is flagged', () => {
    const data = Array.from({ length: 3000 }, (_, i) => ({ id: i, name: `n${i}` }))
    const whole = analyzeContext(JSON.stringify({ data, count: 3000 }), 'all.json')
    expect(whole.fields).toEqual(['data', 'count'])
    expect(whole.recordArrays).toEqual([{ key: 'data', count: 3000, fields: ['id', 'name'] }])
    expect(whole.warnings).toBeUndefined()
    const page = analyzeContext(JSON.stringify({ data, count: 3000, total: 12345 }), 'page.json')
    expect(page.recordArrays?.[0]).toMatchObject({ key: 'data', count: 3000, declaredTotal: 12345 })
    expect(page.warnings?.map((w) => w.code)).toEqual(['partial'])
    expect(formatContextHint(page)).toContain(
      '  Record array "data": 3,000 records of 12,345 declared (fields: "id", "name")',
    )
    const cursor = analyzeContext(JSON.stringify({ items: data.slice(0, 5), next: 'abc' }))
    expect(cursor.warnings?.map((w) => w.code)).toEqual(['partial'])
  })

  test('top-level keys first, then one level of paths', () => {
    const pkg = {
      name: 'x',
      scripts: { build: 'tsup', test: 'vitest' },
      app: { server: { port: 1 }, db: 'pg' },
    }
    expect(analyzeContext(JSON.stringify(pkg, null, 2), 'package.json').fields).toEqual([
      'name',
      'scripts',
      'app',
      'scripts.build',
      'scripts.test',
      'app.server',
      'app.db',
    ])
  })

  test('a map keyed by ids is described as a map, with records and value fields', () => {
    const countries = Object.fromEntries(
      ['AD', 'AE', 'AF', 'AG', 'AI', 'AL', 'AM', 'AO', 'AQ', 'AR'].map((code, i) => [
        code,
        { name: `Country ${i}`, native: `N${i}`, phone: [i], ...(i % 3 ? {} : { partOf: 'X' }) },
      ]),
    )
    const meta = analyzeContext(JSON.stringify(countries), 'countries.json')
    expect(meta.maps).toEqual([
      {
        entries: 10,
        keyExamples: ['AD', 'AE', 'AF', 'AG', 'AI'],
        values: 'objects',
        valueFields: ['name', 'native', 'phone', 'partOf'],
      },
    ])
    expect(meta.recordCount).toBe(10)
    expect(meta.sampleRecord).toBe(`"AD": ${JSON.stringify(countries.AD)}`)
    const hint = formatContextHint(meta)
    expect(hint).toContain(
      '  Map: 10 entries keyed by id ("AD", "AE", "AF", "AG", "AI", …); value fields: "name", "native", "phone", "partOf"',
    )
    expect(hint).not.toContain('AD.name')
  })

  test('a map of strings under a key, and a config of a few keys that is not a map', () => {
    const names = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`C${i}`, `Name ${i}`]))
    const meta = analyzeContext(JSON.stringify({ version: 2, names }))
    expect(meta.maps).toEqual([
      { key: 'names', entries: 12, keyExamples: ['C0', 'C1', 'C2', 'C3', 'C4'], values: 'strings' },
    ])
    expect(meta.fields).toEqual(['version', 'names'])
    const config = { dev: { host: 'a', port: 1 }, prod: { host: 'b', port: 2 } }
    expect(analyzeContext(JSON.stringify(config)).maps).toBeUndefined()
  })
})
