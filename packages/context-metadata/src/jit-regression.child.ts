/**
 * Child process of `jit-regression.test.ts`, run as `node --import tsx <this file> <group>` with
 * V8 tiering up only when told (the test passes a huge `--interrupt-budget` and `--no-use-osr`),
 * so every run compiles the same code from the same feedback. For one group of streaming
 * counters it (1) computes what a large input should count, (2) feeds inputs of another kind
 * (every branch, or a real file with quoted fields), (3) has TurboFan compile the hot methods
 * with `--trace-turbo-reduction` on, so the optimizer's node merges go to stdout, and (4) feeds
 * the large input with `--trace-deopt` on. It prints one `RESULT {json}` line on stderr: the
 * expected and counted values and each method's optimization status before and after (4).
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import v8 from 'node:v8'
import { analyzeContext } from './analyze-context.js'
import { referenceCsvCount } from './csv-reference.js'
import { JsonRecordCounter } from './json-record-counter.js'
import { JsonShapeScanner } from './json-shape-scanner.js'
import { LineCounter } from './lines.js'
import { CsvRecordCounter, NdjsonRecordCounter, NonBlankLineCounter } from './record-counters.js'
import type { ContextMetadata } from './types.js'

v8.setFlagsFromString('--allow-natives-syntax')
type Native = (f: unknown) => unknown
const native = (name: string): Native => new Function('f', `return %${name}(f)`) as Native
const prepare = native('PrepareFunctionForOptimization')
const optimizeOnNextCall = native('OptimizeFunctionOnNextCall')
const status = native('GetOptimizationStatus')

/** A method under test: its function object and a call that runs it. */
interface Target {
  name: string
  fn: unknown
}

interface Group {
  targets: Target[]
  /** Feeds the inputs of another kind (every branch of the targets, or a real file). */
  train(): unknown
  /** Feeds the large input; returns what was counted. */
  victim(): unknown
  /** What the large input should count (by a reference, or before any training). */
  expected(): unknown
}

function pushAll<T extends { push(s: string): void }>(
  counter: T,
  text: string,
  chunk = 1 << 20,
): T {
  for (let at = 0; at < text.length; at += chunk) counter.push(text.slice(at, at + chunk))
  return counter
}

function csvTraining(): string[] {
  const quoted = Array.from(
    { length: 300 },
    (_, i) => `${i},"name, ${i}","say ""hi""\r\nthen ${i}",${i % 9}`,
  )
  quoted[40] = '40,short'
  quoted[41] = ''
  quoted[42] = '  '
  quoted[43] = '43,5" screen,x,y'
  return [
    `\uFEFFid,name,note,n\n${quoted.join('\n')}\n`,
    `id;n\r${'1;2\r'.repeat(100)}"a;b";"c"`,
    `a,b\n${'1,"x"'.repeat(50)}\n"open`,
  ]
}

/** `n` quote-free rows of six fields, like vega-datasets' zipcodes.csv. */
function plainCsv(rows: number, fields = 6): string {
  const row = (i: number) =>
    Array.from({ length: fields }, (_, k) => (k === 0 ? String(i).padStart(5, '0') : `v${k}`))
  return `${Array.from({ length: rows }, (_, i) => row(i).join(',')).join('\n')}\n`
}

const groups: Record<string, () => Group> = {
  /**
   * The reported case: vega-datasets' airports.csv (ten rows with quoted fields), then
   * zipcodes.csv (2 MB, no quote), through the text counter (first reported via `analyzeFile`,
   * which now counts CSV on the bytes; `analyzeContext` still counts text). With the counter of an earlier version the
   * second file took ~650 ms per MiB chunk instead of ~2 ms.
   */
  corpus: () => {
    const data = fileURLToPath(new URL('../node_modules/vega-datasets/data/', import.meta.url))
    const summary = (m: ContextMetadata) => ({ records: m.recordCount, ragged: m.raggedRows ?? 0 })
    return {
      targets: [{ name: 'CsvRecordCounter.push', fn: CsvRecordCounter.prototype.push }],
      // `analyzeFile` counts CSV on the bytes now; the text counter still serves analyzeContext
      train: () =>
        summary(analyzeContext(readFileSync(join(data, 'airports.csv'), 'utf8'), 'airports.csv')),
      victim: () =>
        summary(analyzeContext(readFileSync(join(data, 'zipcodes.csv'), 'utf8'), 'zipcodes.csv')),
      expected: () => {
        const ref = referenceCsvCount(readFileSync(join(data, 'zipcodes.csv'), 'utf8'), ',', 6, 1)
        return { records: ref.records - 1, ragged: ref.ragged }
      },
    }
  },

  /** The hazard itself, so the test knows its detector sees it on this V8. */
  control: () => {
    function push(s: string): number {
      let pos = 0
      let inQuotes = false
      let q = -2
      let n = -2
      let lines = 0
      while (pos < s.length) {
        if (inQuotes) {
          const e = s.indexOf('"', pos)
          if (e === -1) break
          inQuotes = false
          pos = e + 1
          continue
        }
        if (q !== -1 && q < pos) q = s.indexOf('"', pos)
        if (n !== -1 && n < pos) n = s.indexOf('\n', pos)
        if (q !== -1 && (n === -1 || q < n)) {
          inQuotes = true
          pos = q + 1
          continue
        }
        if (n === -1) break
        lines++
        pos = n + 1
      }
      return lines
    }
    const victim = plainCsv(2000)
    return {
      targets: [{ name: 'push', fn: push }],
      train: () => push('a,"b\nc",d\n'.repeat(200)),
      victim: () => push(victim),
      expected: () => 2000,
    }
  },

  csv: () => {
    const training = csvTraining()
    const plain = plainCsv(40_000)
    const ragged = `a,b,c\n${'1,2\n'.repeat(20_000)}`
    const count = (c: CsvRecordCounter) => ({ records: c.result(), ragged: c.raggedRows() })
    return {
      targets: [{ name: 'CsvRecordCounter.push', fn: CsvRecordCounter.prototype.push }],
      train: () => {
        for (const text of training) {
          for (const chunk of [1 << 20, 97, 5]) {
            pushAll(new CsvRecordCounter(','), text, chunk)
            pushAll(new CsvRecordCounter(',', { expectedFields: 4, skipRecords: 1 }), text, chunk)
            pushAll(new CsvRecordCounter(';', { expectedFields: 2, skipRecords: 1 }), text, chunk)
          }
        }
      },
      victim: () => [
        count(pushAll(new CsvRecordCounter(','), plain)),
        count(pushAll(new CsvRecordCounter(',', { expectedFields: 6, skipRecords: 1 }), plain)),
        count(pushAll(new CsvRecordCounter(',', { expectedFields: 3, skipRecords: 1 }), ragged)),
      ],
      expected: () => [
        referenceCsvCount(plain, ','),
        referenceCsvCount(plain, ',', 6, 1),
        referenceCsvCount(ragged, ',', 3, 1),
      ],
    }
  },

  lines: () => {
    const training = ['{"a":1}\r\n[2]\r\r\n  \n{"b"\n', '\uFEFFx\ry\n\n', 'no break', '\n\r']
    const victim = `${'{"id":1,"text":"a, b"}\n'.repeat(60_000)}oops\n`
    const run = () => ({
      lines: pushAll(new LineCounter(), victim).result(),
      nonBlank: pushAll(new NonBlankLineCounter(), victim).result(),
      ndjson: ((c) => [c.result(), c.malformed()])(pushAll(new NdjsonRecordCounter(), victim)),
    })
    const expected = run()
    return {
      targets: [
        { name: 'LineCounter.push', fn: LineCounter.prototype.push },
        { name: 'NonBlankLineCounter.push', fn: NonBlankLineCounter.prototype.push },
        { name: 'NdjsonRecordCounter.push', fn: NdjsonRecordCounter.prototype.push },
      ],
      train: () => {
        for (const text of training) {
          for (const chunk of [1 << 20, 3, 1]) {
            pushAll(new LineCounter(), text, chunk)
            pushAll(new NonBlankLineCounter(), text, chunk)
            pushAll(new NdjsonRecordCounter(), text, chunk)
          }
        }
      },
      victim: run,
      expected: () => expected,
    }
  },

  json: () => {
    const record = (i: number) => ({
      id: i,
      title: `Item ${i} with a "quote", a \\ and ] } [ {`,
      tags: ['a', String(i % 10)],
      owner: { name: `Owner ${i % 50}`, deep: [[[[[[[[[[i]]]]]]]]]] },
    })
    const training = [
      JSON.stringify(
        Array.from({ length: 300 }, (_, i) => record(i)),
        null,
        2,
      ),
      JSON.stringify({ type: 'T', items: Array.from({ length: 200 }, (_, i) => [i, [i]]), n: 2 }),
      JSON.stringify({ AD: { a: 1 }, AE: { a: 2 }, list: [1, 'x', true, null, { k: [] }] }),
      '[1, 2, "unterminated \\',
      '{"a": [1, 2]}\n{"a": [3]}',
    ]
    // quote-free: only numbers and brackets, the counterpart of a CSV without quotes
    const victim = `[${Array.from({ length: 80_000 }, (_, i) => `[[${i},${-i}],[${i % 7},1]]`).join(',')}]`
    const run = () => {
      const scan = pushAll(new JsonShapeScanner(), victim, 1 << 18).result()
      const counts = pushAll(new JsonRecordCounter(), victim, 1 << 18).counts()
      return { count: scan.root.count, kinds: scan.root.kinds, closed: scan.rootClosed, counts }
    }
    const expected = run()
    const proto = JsonShapeScanner.prototype as unknown as Record<string, unknown>
    return {
      targets: [
        { name: 'JsonShapeScanner.push', fn: proto.push },
        { name: 'JsonShapeScanner.skipDeep', fn: proto.skipDeep },
        { name: 'JsonShapeScanner.elementRuns', fn: proto.elementRuns },
        { name: 'JsonShapeScanner.continueString', fn: proto.continueString },
        { name: 'JsonRecordCounter.push', fn: JsonRecordCounter.prototype.push },
      ],
      train: () => {
        for (const text of training) {
          for (const chunk of [1 << 20, 61, 7]) {
            pushAll(new JsonShapeScanner(), text, chunk)
            pushAll(new JsonRecordCounter(), text, chunk)
          }
        }
      },
      victim: run,
      expected: () => expected,
    }
  },
}

const name = process.argv[2] ?? ''
const make = groups[name]
if (!make) throw new Error(`unknown group ${name}`)
const group = make()
const expected = await group.expected()
for (const t of group.targets) prepare(t.fn)
await group.train()
await group.train()
v8.setFlagsFromString('--trace-turbo-reduction')
for (const t of group.targets) optimizeOnNextCall(t.fn)
await group.train()
v8.setFlagsFromString('--no-trace-turbo-reduction')
const before = Object.fromEntries(group.targets.map((t) => [t.name, status(t.fn)]))
v8.setFlagsFromString('--trace-deopt')
const counted = await group.victim()
v8.setFlagsFromString('--no-trace-deopt')
const after = Object.fromEntries(group.targets.map((t) => [t.name, status(t.fn)]))
process.stderr.write(`RESULT ${JSON.stringify({ expected, counted, before, after })}\n`)
