import { describe, expect, test } from 'vitest'
import { JsonShapeScanner } from './json-shape-scanner.js'
import { CsvRecordCounter } from './record-counters.js'
import { RUN, RunPacer, viewOf } from './run-pacer.js'

/** The subject of the last successful regular-expression match (V8's legacy `RegExp.input`). */
function lastMatchSubject(): string {
  return (RegExp as unknown as { input: string }).input
}

describe('RunPacer', () => {
  test('after misses in a row the next tries wait for 1, 2, 4, … chances; a hit resets it', () => {
    const pacer = new RunPacer()
    const waits: number[] = []
    for (let miss = 0; miss < 5; miss++) {
      expect(pacer.due()).toBe(true)
      pacer.miss()
      let skipped = 0
      while (!pacer.due()) skipped++
      waits.push(skipped)
    }
    expect(waits).toEqual([1, 2, 4, 8, 16])
    pacer.hit(RUN, RUN * 10)
    pacer.miss()
    expect(pacer.due()).toBe(false)
    expect(pacer.due()).toBe(true)
  })

  test('the view holds 64 items 4× as long as the last run, between 64 KiB and 4 MiB', () => {
    const pacer = new RunPacer()
    expect(pacer.window).toBe(1 << 16)
    pacer.hit(RUN, RUN * 1000)
    expect(pacer.window).toBe(RUN * 1000 * 4)
    pacer.hit(1, 10 << 20)
    expect(pacer.window).toBe(1 << 22)
    pacer.hit(RUN, RUN)
    expect(pacer.window).toBe(1 << 16)
    const text = 'x'.repeat(100)
    expect(viewOf(text, 10, 200)).toEqual({ view: text, at: 10 })
    expect(viewOf(text, 10, 20)).toEqual({ view: text.slice(10, 30), at: 0 })
  })
})

describe('chunks are not kept alive by the last match', () => {
  // V8 keeps the last match's subject; a chunk kept past its push survives the next scavenge
  // and lands in the old generation (analyzeFile peaked ~50 MB higher before this).
  test('CSV counter', () => {
    const chunk = `id,name\n${'1,"a, b"\n'.repeat(500)}`
    const counter = new CsvRecordCounter(',', { expectedFields: 2, skipRecords: 1 })
    counter.push(chunk)
    expect(counter.result()).toBe(501)
    expect(lastMatchSubject().length).toBeLessThan(100)
  })

  test('JSON shape scan', () => {
    const chunk = JSON.stringify(Array.from({ length: 500 }, (_, i) => ({ id: i, tags: [i] })))
    const scanner = new JsonShapeScanner()
    scanner.push(chunk)
    expect(scanner.result().root.count).toBe(500)
    expect(lastMatchSubject().length).toBeLessThan(100)
  })
})
