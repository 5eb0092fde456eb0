import { mkdir, mkdtemp, rm, stat, utimes, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import {
  createRunInfo,
  createTurnContext,
  getModelInfo,
  memoryTrace,
  runPrepare,
  type TurnContext,
  ValidationError,
} from '@contextkit/core'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { preload } from './middleware.js'
import { PRELOAD_TRACE_STAGES, PRELOAD_VARS_KEY } from './names.js'

let ws: string
const model = getModelInfo('claude-sonnet-4-6')

beforeEach(async () => {
  ws = await mkdtemp(path.join(tmpdir(), 'preload-mw-'))
  await mkdir(path.join(ws, 'src'))
  await writeFile(path.join(ws, 'AGENTS.md'), 'Keep changes small.\n')
  await writeFile(path.join(ws, 'src', 'App.jsx'), 'export const App = () => null\n')
  await writeFile(path.join(ws, 'src', 'Big.jsx'), 'x\n'.repeat(300))
})
afterEach(async () => {
  await rm(ws, { recursive: true, force: true })
})

function baseTurn(vars: Record<string, unknown> = {}): TurnContext {
  return createTurnContext({
    model,
    system: [
      { id: 'rules', text: 'You are helpful.', priority: 100, cache: 'stable' },
      { id: 'resume', text: 'Last time: ...', priority: 50, cache: 'volatile' },
    ],
    userSections: [{ id: 'plan', text: 'Plan: edit App', priority: 60, cache: 'volatile' }],
    vars,
  })
}

describe('preload middleware', () => {
  test('bootstrap files go to system (stable part), referenced files to the user turn', async () => {
    const trace = memoryTrace()
    const run = createRunInfo({ workspace: ws, trace })
    const turn = baseTurn({
      contexts: [{ sourceFile: 'src/App.jsx' }, { sourceFile: 'src/Big.jsx' }],
      backendMap: { models: [{ file: 'api/missing.py' }] },
    })
    const snapshot = structuredClone(turn)
    const out = await runPrepare([preload()], turn, run)

    expect(turn).toEqual(snapshot) // input not mutated
    expect(out.system.map((s) => s.id)).toEqual(['rules', 'bootstrap:AGENTS.md', 'resume'])
    expect(out.system[1]!.text).toContain('Keep changes small.')
    expect(out.userSections.map((s) => s.id)).toEqual(['plan', 'preload:src/App.jsx'])
    expect(out.userSections[1]!.text).toContain('```jsx\nexport const App')
    expect(out.omitted.map((o) => o.id)).toEqual(['preload:src/Big.jsx'])
    expect(out.vars[PRELOAD_VARS_KEY]).toEqual(['src/App.jsx'])

    const [event] = trace.byStage(PRELOAD_TRACE_STAGES.loaded)
    expect(PRELOAD_TRACE_STAGES.loaded).toBe('preload:loaded')
    expect(event!.data).toMatchObject({
      bootstrap: { loaded: ['AGENTS.md'] },
      files: {
        loaded: ['preload:src/App.jsx'],
        skipped: [
          { path: 'src/Big.jsx', reason: 'preload_file_too_large' },
          { path: 'api/missing.py', reason: 'preload_file_not_found' },
        ],
      },
    })
    expect(trace.byStage('warning')).toEqual([])
  })

  test('explicit references, a root option and no bootstrap', async () => {
    const run = createRunInfo({ trace: memoryTrace() })
    const out = await runPrepare(
      [preload({ root: ws, bootstrap: false, references: () => ['src/App.jsx'] })],
      baseTurn(),
      run,
    )
    expect(out.system.map((s) => s.id)).toEqual(['rules', 'resume'])
    expect(out.userSections.map((s) => s.id)).toEqual(['plan', 'preload:src/App.jsx'])
  })

  test('the budgetTokens option limits what is added; an unknown option is refused', async () => {
    const run = createRunInfo({ workspace: ws })
    expect(() => preload({ budget: 1 } as never)).toThrow(/budget/)
    for (const option of [{ budgetTokens: 1 }]) {
      const out = await runPrepare(
        [preload({ ...option, bootstrap: false, references: ['src/App.jsx'] })],
        baseTurn(),
        run,
      )
      expect(out.userSections.map((s) => s.id)).toEqual(['plan'])
      expect(out.omitted.map((o) => o.id)).toEqual(['preload:src/App.jsx'])
    }
  })

  test('bad options are a ValidationError from the factory, naming the option', () => {
    for (const [bad, path] of [
      [{ budgetTokens: -1 }, 'budgetTokens'],
      [{ root: 42 }, 'root'],
      [{ references: 'src/App.jsx' }, 'references'],
      [{ bootstrap: 'yes' }, 'bootstrap'],
      [{ bootstrapOptions: { maxChars: 0 } }, 'bootstrapOptions.maxChars'],
      [{ counter: {} }, 'counter'],
      [{ concurrency: 0 }, 'concurrency'],
    ] as const) {
      let caught: unknown
      try {
        preload(bad as never)
      } catch (error) {
        caught = error
      }
      expect(ValidationError.isInstance(caught)).toBe(true)
      expect((caught as ValidationError).issues.map((i) => i.path)).toContain(path)
    }
    expect(() => preload(null as never)).toThrow(ValidationError)
  })

  test('no root: a warning, the turn goes on unchanged', async () => {
    const trace = memoryTrace()
    const turn = baseTurn({ contexts: [{ sourceFile: 'src/App.jsx' }] })
    const out = await runPrepare([preload()], turn, createRunInfo({ trace }))
    expect(out).toBe(turn)
    expect(trace.byStage('warning')[0]!.data).toMatchObject({
      source: 'preload',
      code: 'configuration_error',
    })
  })

  test('malformed turn vars: a warning, bootstrap still loaded', async () => {
    const trace = memoryTrace()
    const out = await runPrepare(
      [preload()],
      baseTurn({ contexts: 'not a list' }),
      createRunInfo({ workspace: ws, trace }),
    )
    expect(out.system.some((s) => s.id === 'bootstrap:AGENTS.md')).toBe(true)
    expect(out.userSections.map((s) => s.id)).toEqual(['plan'])
    expect(trace.byStage('warning')[0]!.data).toMatchObject({
      source: 'preload.references',
      code: 'validation_error',
    })
  })

  test('a root that does not exist: warnings, turn unchanged', async () => {
    const trace = memoryTrace()
    const turn = baseTurn()
    const out = await runPrepare(
      [preload({ references: ['src/App.jsx'] })],
      turn,
      createRunInfo({ workspace: path.join(ws, 'gone'), trace }),
    )
    expect(out.system).toEqual(turn.system)
    expect(out.userSections).toEqual(turn.userSections)
    const codes = trace.byStage('warning').map((e) => e.data.code)
    expect(codes).toEqual(['preload_root_unavailable', 'preload_root_unavailable'])
  })

  test('a throwing references function becomes a warning', async () => {
    const trace = memoryTrace()
    const out = await runPrepare(
      [
        preload({
          bootstrap: false,
          references: () => {
            throw new Error('boom')
          },
        }),
      ],
      baseTurn(),
      createRunInfo({ workspace: ws, trace }),
    )
    expect(out.userSections.map((s) => s.id)).toEqual(['plan'])
    expect(trace.byStage('warning')[0]!.data).toMatchObject({ code: 'unexpected' })
  })

  test('runs over unchanged files give the same sections; a file changed in between is seen', async () => {
    // older than the cache's racy window, so the second run is served from the cache
    await new Promise((resolve) => setTimeout(resolve, 2100))
    const mw = preload({ references: ['src/App.jsx'] })
    const run = () => runPrepare([mw], baseTurn(), createRunInfo({ workspace: ws }))
    const first = await run()
    const second = await run()
    expect(second.system).toEqual(first.system)
    expect(second.userSections).toEqual(first.userSections)

    // same sizes, modification times put back: still seen (the change time moved)
    const agents = path.join(ws, 'AGENTS.md')
    const app = path.join(ws, 'src', 'App.jsx')
    const [agentsStat, appStat] = await Promise.all([stat(agents), stat(app)])
    await writeFile(agents, 'Keep changes large.\n')
    await writeFile(app, 'export const App = () => 42\n')
    await utimes(agents, agentsStat.atime, agentsStat.mtime)
    await utimes(app, appStat.atime, appStat.mtime)
    // and a bootstrap file that was missing on the last run
    await writeFile(path.join(ws, 'SOUL.md'), 'Be kind.\n')
    const third = await run()
    expect(third.system.map((s) => s.id)).toEqual([
      'rules',
      'bootstrap:AGENTS.md',
      'bootstrap:SOUL.md',
      'resume',
    ])
    expect(third.system[1]!.text).toContain('Keep changes large.')
    expect(third.system[2]!.text).toContain('Be kind.')
    expect(third.userSections[1]!.text).toContain('() => 42')
  })
})
