// docs/trace-schema.md is the trace's schema: every record type the packages write, with every
// field of its data, read from their TypeScript sources (./trace-records.ts). A record type or a
// field in the code and not in the doc fails here, and so does one in the doc and not in the code.
import { readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { AGENT_TRACE_STAGES, COMPOSITION_RECORD_VERSION } from '@contextkit/agent-loop'
import { CONTEXT_METADATA_TRACE_STAGES } from '@contextkit/context-metadata'
import { CORE_TRACE_STAGES } from '@contextkit/core'
import { PREFILL_TRACE_STAGES } from '@contextkit/prefill'
import { PRELOAD_TRACE_STAGES } from '@contextkit/preload'
import { RESUMPTION_TRACE_STAGES } from '@contextkit/resumption'
import { beforeAll, describe, expect, test } from 'vitest'
import { type CodeRecord, codeRecords, interfaceFields } from './trace-records.js'

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
const doc = readFileSync(join(repo, 'docs', 'trace-schema.md'), 'utf8')

/** Every stage constant object, by the name the sources use. */
const CONSTANTS: Record<string, Readonly<Record<string, string>>> = {
  AGENT_TRACE_STAGES,
  CORE_TRACE_STAGES,
  PREFILL_TRACE_STAGES,
  PRELOAD_TRACE_STAGES,
  RESUMPTION_TRACE_STAGES,
  CONTEXT_METADATA_TRACE_STAGES,
}

/** The packages that record, read from their sources. */
const PACKAGES = ['core', 'agent-loop', 'prefill', 'preload', 'resumption', 'context-metadata']

/** Records whose data the doc lists one level down too (the checker lists them the same way). */
const NESTED = new Set(['AGENT_TRACE_STAGES.composition', 'PRELOAD_TRACE_STAGES.loaded'])

/** The stage string a constant names (`AGENT_TRACE_STAGES.request` → `agent:request`). */
function stageOf(constant: string): string {
  const [object = '', key = ''] = constant.split('.')
  const stage = CONSTANTS[object]?.[key]
  if (stage === undefined) throw new Error(`${constant} is not a known stage constant`)
  return stage
}

/** The first cell of each table row in `markdown`, when it is one code span: the fields. */
function tableFields(markdown: string): string[] {
  return [...markdown.matchAll(/^\| `([^`]+)` \|/gm)].map((m) => m[1] as string)
}

/** The doc's sections under `### \`stage\`` headings: stage → the fields of its table. */
function docRecords(markdown: string): Map<string, string[]> {
  const out = new Map<string, string[]>()
  const parts = markdown.split(/^(?=#{2,3} )/m)
  for (const part of parts) {
    const heading = /^### `([^`]+)`\s*\n/.exec(part)
    if (heading) out.set(heading[1] as string, tableFields(part))
  }
  return out
}

/** The text of the `## title` section of `markdown`. */
function section(markdown: string, title: string): string {
  const at = markdown.indexOf(`\n## ${title}\n`)
  if (at < 0) return ''
  const next = markdown.indexOf('\n## ', at + 1)
  return markdown.slice(at, next < 0 ? undefined : next)
}

describe('docs/trace-schema.md', () => {
  let code: Map<string, CodeRecord>
  const documented = docRecords(doc)

  beforeAll(() => {
    code = codeRecords({
      dirs: PACKAGES.map((p) => join(repo, 'packages', p, 'src')),
      nested: NESTED,
    })
  }, 120_000)

  test('the reader sees the code: the loop records a request with its step, a middleware its own stage', () => {
    expect(code.get('AGENT_TRACE_STAGES.request')?.fields).toContain('step')
    expect(code.get('AGENT_TRACE_STAGES.composition')?.fields).toContain('parts[].kind')
    expect(code.get('PREFILL_TRACE_STAGES.injected')?.fields).toContain('prefill')
    expect(code.size).toBeGreaterThan(30)
  })

  test('states its schema version, and the composition record version is the code’s', () => {
    expect(doc).toMatch(/^\*\*Schema version: \d+\.\*\*$/m)
    const composition = documented.get(AGENT_TRACE_STAGES.composition)
    expect(composition).toContain('v')
    const row = /^\| `v` \| `(\d+)` \|/m.exec(doc)
    expect(Number(row?.[1])).toBe(COMPOSITION_RECORD_VERSION)
  })

  test("documents the envelope: every field of core's TraceEvent", () => {
    const fields = interfaceFields(join(repo, 'packages/core/src/trace.ts'), 'TraceEvent')
    expect(fields).toContain('stage')
    expect(tableFields(section(doc, 'The envelope: `TraceEvent`')).sort()).toEqual(fields.sort())
  })

  test('documents every stage a package declares, and no other', () => {
    const declared = Object.values(CONSTANTS).flatMap((stages) => Object.values(stages))
    expect([...documented.keys()].sort()).toEqual([...declared].sort())
  })

  test('every record type the code writes is documented with every field, and no field it does not write', () => {
    const missing: string[] = []
    const extra: string[] = []
    for (const record of code.values()) {
      const stage = stageOf(record.constant)
      const fields = documented.get(stage)
      if (!fields) {
        missing.push(`${stage}: the whole record`)
        continue
      }
      for (const f of record.fields) if (!fields.includes(f)) missing.push(`${stage}: ${f}`)
      const checked = NESTED.has(record.constant)
      for (const f of fields) {
        if ((checked || !/[.[]/.test(f)) && !record.fields.has(f)) extra.push(`${stage}: ${f}`)
      }
    }
    expect(missing, 'in the code, not in docs/trace-schema.md').toEqual([])
    expect(extra, 'in docs/trace-schema.md, not in the code').toEqual([])
  })

  test('every declared stage is written somewhere (a constant nobody records is dead)', () => {
    const written = new Set([...code.keys()].map(stageOf))
    const declared = Object.values(CONSTANTS).flatMap((stages) => Object.values(stages))
    expect(declared.filter((stage) => !written.has(stage))).toEqual([])
  })

  test('says what the inspector reads: every stage of its LOOP_STAGES, and only those', () => {
    // the inspector names the loop's stages itself (it depends on core only): read them there
    const source = readFileSync(join(repo, 'packages/inspector/src/stages.ts'), 'utf8')
    const read = [...source.matchAll(/'(agent:[\w-]+)'/g)].map((m) => m[1] as string)
    expect(read).toContain(AGENT_TRACE_STAGES.composition)
    const table = section(doc, 'What the inspector reads')
    expect(tableFields(table).sort()).toEqual(read.sort())
  })
})
