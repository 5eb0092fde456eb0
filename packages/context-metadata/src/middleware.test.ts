import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  createRunInfo,
  createTurnContext,
  fitSections,
  getModelInfo,
  memoryTrace,
  runPrepare,
} from '@contextkit/core'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { contextMetadata } from './middleware.js'
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
      '[Context available in __vars.context]',
      '  Source: feed.ndjson',
      '  Format: NDJSON (newline-delimited JSON)',
    ])
    expect(section.shorter).toEqual([
      '[Context available in __vars.context (32 chars, 2 lines, 2 records, detected: NDJSON)]',
    ])
    const meta = out.vars.contextMeta as ContextMetadata
    expect(meta).toMatchObject({ format: 'ndjson', recordCount: 2, fields: ['a', 'b'], bytes: 32 })
    expect(out.vars.keep).toBe(1)
    expect(trace.byStage('context-metadata')[0]?.data).toMatchObject({ format: 'ndjson', lines: 2 })
  })

  test('inline context without a file name gets the one-line form', async () => {
    const turn = createTurnContext({ model, vars: { context: ndjson } })
    const out = await runPrepare([contextMetadata()], turn, createRunInfo())
    expect(out.userSections).toHaveLength(1)
    expect(out.userSections[0]!.text).toBe(
      '[Context available in __vars.context (32 chars, 2 lines, 2 records, detected: NDJSON)]',
    )
    expect(out.userSections[0]!.shorter).toBeUndefined()
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
      code: 'context_file_unreadable',
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
    expect(kept[0]!.text).toMatch(
      /^\[Context available in __vars.context \(.*detected: NDJSON\)\]$/,
    )
    expect(omissions).toEqual([expect.objectContaining({ id: 'ctx', reason: 'shortened' })])
    expect(out.vars.meta).toBeDefined()
  })
})

describe('contextMetadata middleware, programming errors', () => {
  test('bad analysis options throw instead of becoming a warning', async () => {
    const mw = contextMetadata({ content: 'x', analyze: { sniffChars: -1 } })
    await expect(
      runPrepare([mw], createTurnContext({ model }), createRunInfo()),
    ).rejects.toMatchObject({
      code: 'configuration_error',
    })
  })
})
