import { mkdtempSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  createRunInfo,
  createTurnContext,
  fitSections,
  getModelInfo,
  memoryTrace,
  runPrepare,
  ValidationError,
} from '@contextkit/core'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { type ContextMetadataOptions, contextMetadata } from './middleware.js'
import { CONTEXT_METADATA_TRACE_STAGES, CONTEXT_METADATA_VARS_KEY } from './names.js'
import type { ContextMetadata } from './types.js'

let dir: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ctxmeta-mw-'))
})
afterAll(() => {
  rmSync(dir, { recursive: true, force: true })
})

const model = getModelInfo('claude-sonnet-4-6')
const ndjson = '{"a":1,"b":"x"}\n{"a":2,"b":"y"}\n'

describe('contextMetadata middleware', () => {
  test('adds the block hint as a user section and the metadata as vars.contextMeta', async () => {
    const path = join(dir, 'feed.ndjson')
    writeFileSync(path, ndjson)
    const trace = memoryTrace()
    const turn = createTurnContext({ model, vars: { keep: 1 } })
    const out = await runPrepare([contextMetadata({ file: path })], turn, createRunInfo({ trace }))
    expect(out).not.toBe(turn)
    expect(turn.userSections).toEqual([])
    const section = out.userSections[0]!
    expect(section.id).toBe('context-metadata')
    expect(section.text.split('\n').slice(0, 3)).toEqual([
      `[Context available in file ${path}]`,
      '  Source: feed.ndjson',
      '  Format: NDJSON (newline-delimited JSON)',
    ])
    expect(section.text.split('\n')[0]).toBe(`[Context available in file ${path}]`)
    expect(section.shorter).toEqual([
      `[Context available in file ${path} (32 chars, 2 lines, 2 records, detected: NDJSON; fields: "a", "b"; sample record (verbatim data): {"a":1,"b":"x"})]`,
      `[Context available in file ${path} (32 chars, 2 lines, 2 records, detected: NDJSON)]`,
    ])
    const meta = out.vars.contextMeta as ContextMetadata
    expect(meta).toMatchObject({ format: 'ndjson', recordCount: 2, fields: ['a', 'b'], bytes: 32 })
    expect(out.vars.keep).toBe(1)
    expect(trace.byStage('context-metadata:analyzed')[0]?.data).toMatchObject({
      format: 'ndjson',
      lines: 2,
    })
  })

  test('inline context without a file name gets the one-line form', async () => {
    const turn = createTurnContext({ model, vars: { context: ndjson } })
    const out = await runPrepare([contextMetadata()], turn, createRunInfo())
    expect(out.userSections).toHaveLength(1)
    expect(out.userSections[0]!.text).toBe(
      '[Context available in __vars.context (32 chars, 2 lines, 2 records, detected: NDJSON; fields: "a", "b"; sample record (verbatim data): {"a":1,"b":"x"})]',
    )
    expect(out.userSections[0]!.shorter).toEqual([
      '[Context available in __vars.context (32 chars, 2 lines, 2 records, detected: NDJSON)]',
    ])
    expect((out.vars.contextMeta as ContextMetadata).fileName).toBeUndefined()
  })

  test('no context at all leaves the turn unchanged', async () => {
    const turn = createTurnContext({ model })
    expect(await runPrepare([contextMetadata()], turn, createRunInfo())).toBe(turn)
  })

  test('an unreadable file records a warning and leaves the turn unchanged', async () => {
    const trace = memoryTrace()
    const turn = createTurnContext({ model })
    const out = await runPrepare(
      [contextMetadata({ file: join(dir, 'missing.csv') })],
      turn,
      createRunInfo({ trace }),
    )
    expect(out).toBe(turn)
    expect(trace.byStage('warning')[0]?.data).toMatchObject({
      source: 'context-metadata',
      code: 'context_metadata_file_unreadable',
    })
  })

  test('running twice replaces its section instead of adding a second one', async () => {
    const mw = contextMetadata({ content: 'a,b\n1,2\n3,4\n', fileName: 'x.csv' })
    const run = createRunInfo()
    const once = await runPrepare([mw], createTurnContext({ model }), run)
    const twice = await runPrepare([mw], once, run)
    expect(twice.userSections).toHaveLength(1)
    expect(twice.userSections[0]!.text).toContain('Source: x.csv')
  })

  test('an unchanged context renders its hint once; each run gets its own section', async () => {
    const mw = contextMetadata({ contextVar: 'data' })
    const turn = (data: string) => createTurnContext({ model, vars: { data } })
    const first = await runPrepare([mw], turn(ndjson), createRunInfo())
    const second = await runPrepare([mw], turn(ndjson), createRunInfo())
    const [a, b] = [first.userSections[0]!, second.userSections[0]!]
    expect(b).toEqual(a)
    expect(b).not.toBe(a) // a caller changing one run's section never changes the next run's
    if (a.shorter) expect(b.shorter).not.toBe(a.shorter)
    const other = await runPrepare([mw], turn(`${ndjson}${ndjson}`), createRunInfo())
    expect(other.userSections[0]!.text).toContain('4 records')
  })

  test('a changed file is analyzed again', async () => {
    const path = join(dir, 'grow.ndjson')
    writeFileSync(path, ndjson)
    const mw = contextMetadata({ file: path })
    const run = createRunInfo()
    const first = await runPrepare([mw], createTurnContext({ model }), run)
    writeFileSync(path, ndjson + ndjson + ndjson)
    const second = await runPrepare([mw], createTurnContext({ model }), run)
    expect((first.vars.contextMeta as ContextMetadata).recordCount).toBe(2)
    expect((second.vars.contextMeta as ContextMetadata).recordCount).toBe(6)
  })

  test('a file replaced by one of the same size and modification time is analyzed again', {
    timeout: 10_000,
  }, async () => {
    const path = join(dir, 'swap.ndjson')
    const next = join(dir, 'swap.next')
    const one = '{"a":1,"b":"xxxxxxxxxxxxxxxxx"}\n'
    expect(one.length).toBe(ndjson.length)
    writeFileSync(path, ndjson)
    const then = new Date(Date.now() - 60_000)
    utimesSync(path, then, then)
    // older than the racy window: the middleware keeps its analysis
    await new Promise((resolve) => setTimeout(resolve, 2100))
    const mw = contextMetadata({ file: path })
    const meta = async () =>
      (await runPrepare([mw], createTurnContext({ model }), createRunInfo())).vars
        .contextMeta as ContextMetadata
    const first = await meta()
    expect(first.recordCount).toBe(2)
    expect(await meta()).toBe(first)
    // same path, size and mtime; another inode and change time (rsync -t, cp -p, a mv)
    writeFileSync(next, one)
    utimesSync(next, then, then)
    renameSync(next, path)
    expect((await meta()).recordCount).toBe(1)
  })

  test('under a tight budget, fitting falls back to the one-line form', async () => {
    const path = join(dir, 'wide.ndjson')
    const rec = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`field_${i}`, i]))
    writeFileSync(path, `${JSON.stringify(rec)}\n${JSON.stringify(rec)}\n`)
    const out = await runPrepare(
      [contextMetadata({ file: path, metaVar: 'meta', sectionId: 'ctx' })],
      createTurnContext({ model }),
      createRunInfo(),
    )
    const counter = { id: 'chars', kind: 'estimate' as const, count: (t: string) => t.length }
    const { kept, omissions } = fitSections(out.userSections, 120, counter)
    expect(kept[0]!.text).toBe(out.userSections[0]!.shorter!.at(-1))
    expect(kept[0]!.text).toMatch(
      /^\[Context available in file .*wide\.ndjson \(.*detected: NDJSON\)\]$/,
    )
    expect(omissions).toEqual([expect.objectContaining({ id: 'ctx', reason: 'shortened' })])
    expect(out.vars.meta).toBeDefined()
  })
})

describe('the hint names where the context really is', () => {
  test('another vars key: the hint points at that key', async () => {
    const turn = createTurnContext({ model, vars: { doc: ndjson } })
    const out = await runPrepare([contextMetadata({ contextVar: 'doc' })], turn, createRunInfo())
    expect(out.userSections[0]!.text.startsWith('[Context available in __vars.doc (')).toBe(true)
    const odd = createTurnContext({ model, vars: { 'my doc': ndjson } })
    const out2 = await runPrepare([contextMetadata({ contextVar: 'my doc' })], odd, createRunInfo())
    expect(out2.userSections[0]!.text.startsWith('[Context available in __vars["my doc"] (')).toBe(
      true,
    )
  })

  test('content given to the middleware: no place is claimed, unless contextRef says one', async () => {
    const run = createRunInfo()
    const plain = await runPrepare(
      [contextMetadata({ content: ndjson })],
      createTurnContext({ model }),
      run,
    )
    expect(plain.userSections[0]!.text.startsWith('[Context available (32 chars')).toBe(true)
    expect(plain.userSections[0]!.text).not.toContain('__vars')
    const named = await runPrepare(
      [contextMetadata({ content: ndjson, hint: { contextRef: 'the attached feed' } })],
      createTurnContext({ model }),
      run,
    )
    expect(
      named.userSections[0]!.text.startsWith('[Context available in the attached feed ('),
    ).toBe(true)
  })

  test('the trace event and the vars key are the exported constants', async () => {
    const trace = memoryTrace()
    const turn = createTurnContext({ model, vars: { context: ndjson } })
    const out = await runPrepare([contextMetadata()], turn, createRunInfo({ trace }))
    expect(out.vars[CONTEXT_METADATA_VARS_KEY]).toMatchObject({ format: 'ndjson' })
    expect(trace.byStage(CONTEXT_METADATA_TRACE_STAGES.analyzed)[0]?.data).toMatchObject({
      contextRef: '__vars.context',
    })
  })
})

describe('contextMetadata middleware, programming errors', () => {
  test('bad options are a ValidationError from the factory', () => {
    for (const bad of [
      { analyze: { sniffChars: -1 } },
      { contextVar: '' },
      { priority: Number.NaN },
      { cache: 'sometimes' },
      { file: 42 },
      { hint: { maxFields: 0 } },
    ]) {
      expect(() => contextMetadata(bad as unknown as ContextMetadataOptions)).toThrow(
        ValidationError,
      )
    }
  })
})
