import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { analyzeContext } from './analyze-context.js'
import { analyzeFile } from './analyze-file.js'

let dir: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ctxmeta-tricky-'))
})
afterAll(() => {
  rmSync(dir, { recursive: true, force: true })
})

const compose = `# Local development stack, start with: docker compose up
services:
  web:
    image: "nginx:1.27"
    ports:
      - "80:80"
      - "443:443"
    depends_on: [api, db]
  api:
    build: ./api
    command: ["node", "server.js", "--port", "3000"]
    environment:
      - DATABASE_URL=postgres://app:app@db:5432/app
  db:
    image: postgres:16
`

const python = `# Import orders from a CSV export and print a summary.
import csv, sys
from collections import Counter


def main(path, limit=10):
    counts = Counter()
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            counts[row["country"], row["status"]] += 1
    for (country, status), n in counts.most_common(limit):
        print(country, status, n, sep=", ")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
`

const typescript = `import { readFile, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'

export async function copy(from: string, to: string, options = { overwrite: false }) {
  const text = await readFile(resolve(from), 'utf8')
  await writeFile(join(to, 'out.txt'), text, { flag: options.overwrite ? 'w' : 'wx' })
  return { bytes: text.length, from, to }
}
`

const shell = `set -euo pipefail
cp README.md, LICENSE dist/
printf '%s, %s\\n' "$USER" "$HOME"
tar -czf out.tgz --exclude=node_modules,dist .
echo "done, copied $(ls dist | wc -l) files"
`

const logfmt = `time=2024-11-02T15:30:00Z level=info msg="request done, cached" path=/api/items status=200
time=2024-11-02T15:30:01Z level=warn msg="slow query, 1.2s" table=orders rows=120
time=2024-11-02T15:30:02Z level=info msg="request done, cached" path=/api/users status=200
time=2024-11-02T15:30:03Z level=error msg="upstream timeout, retrying" attempt=2
`

const htmlFragment = `<my-widget>
  <form action="/search" method="get">
    <label for="q">Search</label>
    <input id="q" name="q">
    <button type="submit">Go</button>
  </form>
</my-widget>
`

describe('text that starts with a comment', () => {
  test('docker-compose YAML with a # first line is YAML, not markdown', () => {
    expect(analyzeContext(compose).format).toBe('yaml')
    expect(analyzeContext(compose, 'docker-compose.yml').format).toBe('yaml')
  })

  test('a Python script with a # first line is plain text, never markdown nor CSV', () => {
    expect(analyzeContext(python).format).toBe('plain-text')
    expect(analyzeContext(python, 'import_orders.py').format).toBe('plain-text')
  })

  test('source code with commas in argument lists is never CSV', () => {
    for (const code of [typescript, shell, python]) {
      expect(analyzeContext(code).format).toBe('plain-text')
      expect(analyzeContext(code, 'x.txt').format).toBe('plain-text')
    }
  })

  test('logfmt lines are plain text, not two-column CSV', () => {
    expect(analyzeContext(logfmt).format).toBe('plain-text')
    expect(analyzeContext(logfmt, 'app.log').format).toBe('plain-text')
  })

  test('an HTML fragment with a form and a button is HTML, not XML', () => {
    expect(analyzeContext(htmlFragment)).toMatchObject({ format: 'html', rootElement: 'my-widget' })
    expect(analyzeContext('<button class="x">Save</button>\n').format).toBe('html')
    expect(analyzeContext('<catalog><book id="1"/></catalog>').format).toBe('xml')
  })

  test('markdown needs more than one # line; CSV needs a consistent header', () => {
    expect(analyzeContext('# Notes\nbuy milk\ncall Ann\n').format).toBe('plain-text')
    expect(analyzeContext('# Notes\n\n## Today\n\nbuy milk\n').format).toBe('markdown')
    const quotedProse = 'He said "yes, of course" and left.\nShe said "no, never" and stayed.\n'
    expect(analyzeContext(quotedProse).format).toBe('plain-text')
  })
})

describe('NDJSON with a minority of malformed lines, CSV with ragged rows', () => {
  test('truncated and text lines are counted and reported; the records are exact', () => {
    const lines = Array.from({ length: 50 }, (_, i) => JSON.stringify({ id: i, v: `x${i}` }))
    lines[3] = '{"id": 3, "v": "trunc'
    lines[20] = 'WARN: writer restarted'
    lines[41] = '{"id": 41, "v": oops}'
    const text = `${lines.join('\n')}\n`
    for (const meta of [analyzeContext(text), analyzeContext(text, 'events.jsonl')]) {
      expect(meta).toMatchObject({ format: 'ndjson', recordCount: 47, malformedLines: 3 })
      expect(meta.warnings?.[0]?.code).toBe('malformed')
    }
  })

  test('a bad line beyond the sniff window is counted too', async () => {
    const lines = Array.from({ length: 4000 }, (_, i) => JSON.stringify({ id: i }))
    lines[3900] = 'not json at all'
    const text = lines.join('\n')
    expect(analyzeContext(text, undefined, { sniffChars: 1000 })).toMatchObject({
      format: 'ndjson',
      recordCount: 3999,
      malformedLines: 1,
    })
    const path = join(dir, 'late-bad.ndjson')
    writeFileSync(path, text)
    expect(await analyzeFile(path, { sniffBytes: 1000, chunkBytes: 4096 })).toMatchObject({
      recordCount: 3999,
      malformedLines: 1,
    })
  })

  test('one row with an extra column stays CSV, with a ragged warning and a count', () => {
    const csv = 'id,name,score\n1,Ann,3\n2,Bob,4,extra\n3,Cy,5\n4,Di,6\n'
    const meta = analyzeContext(csv)
    expect(meta).toMatchObject({ format: 'csv', recordCount: 4, raggedRows: 1 })
    expect(meta.warnings).toEqual([
      { code: 'ragged', message: "1 of 4 rows do not have the header's 3 fields." },
    ])
  })
})

describe('very long lines never change the format', () => {
  const big = (i: number) =>
    JSON.stringify({ id: i, role: 'user', text: 'word '.repeat(15000), embedding: [0.1, 0.2] })
  const jsonl = `${[0, 1, 2, 3].map(big).join('\n')}\n`

  test('analyzeContext: a .jsonl with lines over 64 KB is NDJSON, by name and by content', () => {
    expect(big(0).length).toBeGreaterThan(65536)
    for (const name of ['chat.jsonl', undefined, 'chat']) {
      const meta = analyzeContext(jsonl, name)
      expect(meta).toMatchObject({ format: 'ndjson', recordCount: 4, lines: 4 })
      expect(meta.fields).toEqual(['id', 'role', 'text', 'embedding'])
      expect(meta.sampleRecord?.startsWith('{"id":0,"role":"user"')).toBe(true)
    }
  })

  test('analyzeFile: the same, streamed', async () => {
    const path = join(dir, 'chat.jsonl')
    writeFileSync(path, jsonl)
    for (const fileName of ['chat.jsonl', 'chat']) {
      const meta = await analyzeFile(path, { fileName })
      expect(meta).toMatchObject({ format: 'ndjson', recordCount: 4, lines: 4 })
      expect(meta.fields).toEqual(['id', 'role', 'text', 'embedding'])
    }
  })

  test('one long JSON document stays JSON', () => {
    const one = big(0)
    expect(analyzeContext(one, 'doc.json')).toMatchObject({ format: 'json' })
    expect(analyzeContext(one).format).toBe('json')
  })
})

describe('NDJSON with a few bad lines', () => {
  test('one bad line among many is NDJSON with a malformed warning and a count', () => {
    const good = Array.from({ length: 20 }, (_, i) => JSON.stringify({ i }))
    good.splice(5, 0, '{"i": 5, oops')
    const meta = analyzeContext(good.join('\n'))
    expect(meta.format).toBe('ndjson')
    expect(meta.recordCount).toBe(20)
    expect(meta.malformedLines).toBe(1)
    expect(meta.warnings).toEqual([
      {
        code: 'malformed',
        message: '1 of 21 non-blank lines are not JSON records (left out of the record count).',
      },
    ])
  })

  test('a minority of bad lines stays NDJSON; a majority is not NDJSON', () => {
    const some = Array.from({ length: 20 }, (_, i) => (i % 3 ? JSON.stringify({ i }) : 'oops'))
    expect(analyzeContext(some.join('\n'))).toMatchObject({
      format: 'ndjson',
      recordCount: 13,
      malformedLines: 7,
    })
    const most = Array.from({ length: 20 }, (_, i) => (i % 3 ? 'oops' : JSON.stringify({ i })))
    expect(analyzeContext(most.join('\n')).format).not.toBe('ndjson')
  })
})
