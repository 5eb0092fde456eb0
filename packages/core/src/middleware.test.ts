import { describe, expect, test } from 'vitest'
import { reply } from '../../../test-utils/messages.js'
import { ContextkitError } from './errors.js'
import { textMessage } from './messages.js'
import {
  CORE_TRACE_STAGES,
  type ContextMiddleware,
  createRunInfo,
  createTurnContext,
  type FinalizeInfo,
  getRunState,
  type RunInfo,
  runFinalize,
  runPrepare,
  runPrepareStep,
  runRecover,
  setRunState,
  type TurnContext,
} from './middleware.js'
import { getModelInfo } from './models.js'
import { memoryTrace } from './trace.js'

class FeatureOffError extends ContextkitError {
  static override readonly code = 'feature_off'
}

const tagger = (name: string, log: string[]): ContextMiddleware => ({
  name,
  prepare(turn) {
    log.push(`prepare:${name}`)
    return {
      ...turn,
      vars: { ...turn.vars, order: [...((turn.vars.order as string[]) ?? []), name] },
    }
  },
  finalize(r) {
    log.push(`finalize:${name}`)
    const first = r.content[0]
    const text = first?.type === 'text' ? first.text : ''
    return { ...r, content: [{ type: 'text', text: `${text}<${name}>` }] }
  },
})

describe('runPrepare / runFinalize', () => {
  const turn = createTurnContext({
    model: getModelInfo('claude-haiku-4-5'),
    messages: [textMessage('user', 'hi')],
  })

  test('prepare runs in order, finalize in reverse, each on the previous result', async () => {
    const log: string[] = []
    const mw = [tagger('a', log), tagger('b', log), { name: 'noop' }]
    const run = createRunInfo()
    const prepared = await runPrepare(mw, turn, run)
    expect(prepared.vars.order).toEqual(['a', 'b'])
    expect(turn.vars).toEqual({}) // input untouched
    const final = await runFinalize(mw, reply('x'), prepared, run)
    expect(final.content).toEqual([{ type: 'text', text: 'x<b><a>' }])
    expect(log).toEqual(['prepare:a', 'prepare:b', 'finalize:b', 'finalize:a'])
  })

  test('a recoverable ContextkitError becomes a trace warning and the middleware is skipped', async () => {
    const trace = memoryTrace()
    const run = createRunInfo({ trace, runId: 'r1' })
    const failing: ContextMiddleware = {
      name: 'flaky',
      prepare() {
        throw new FeatureOffError('state file unreadable', { recoverable: true })
      },
      async finalize() {
        throw new FeatureOffError('cannot save', { recoverable: true })
      },
    }
    const log: string[] = []
    const mw = [failing, tagger('after', log)]
    const prepared = await runPrepare(mw, turn, run)
    expect(prepared.vars.order).toEqual(['after'])
    const final = await runFinalize(mw, reply('y'), prepared, run)
    expect(final.content).toEqual([{ type: 'text', text: 'y<after>' }])
    expect(trace.byStage('warning').map((e) => e.data)).toEqual([
      {
        source: 'flaky.prepare',
        code: 'feature_off',
        message: 'FeatureOffError: state file unreadable',
      },
      { source: 'flaky.finalize', code: 'feature_off', message: 'FeatureOffError: cannot save' },
    ])
  })

  test('non-recoverable and foreign errors propagate', async () => {
    const run = createRunInfo()
    const bug: ContextMiddleware = {
      name: 'bug',
      prepare(): TurnContext {
        throw new TypeError('undefined is not a function')
      },
    }
    await expect(runPrepare([bug], turn, run)).rejects.toThrow(TypeError)
    const fatal: ContextMiddleware = {
      name: 'fatal',
      finalize() {
        throw new FeatureOffError('rejected', { recoverable: false })
      },
    }
    await expect(runFinalize([fatal], reply('z'), turn, run)).rejects.toThrow('rejected')
  })
})

test('createTurnContext and createRunInfo fill defaults', () => {
  const model = getModelInfo('claude-opus-4-6')
  expect(createTurnContext({ model })).toEqual({
    model,
    system: [],
    messages: [],
    userSections: [],
    tools: [],
    vars: {},
    omitted: [],
  })
  const a = createRunInfo()
  const b = createRunInfo()
  expect(a.runId).not.toBe(b.runId)
  expect(a.runId).toMatch(/^run_[0-9a-f-]{36}$/)
  expect(createRunInfo({ runId: 'x', sessionId: 's' })).toMatchObject({
    runId: 'x',
    sessionId: 's',
  })
  expect(a.state).toBeInstanceOf(Map)
  expect(a.state).not.toBe(b.state)
})

describe('finalize info', () => {
  const turn = createTurnContext({ model: getModelInfo('claude-haiku-4-5') })

  test('runFinalize passes { final, step } to every finalize, so each decides for itself', async () => {
    const seen: Array<[string, FinalizeInfo | undefined]> = []
    const spy = (name: string): ContextMiddleware => ({
      name,
      finalize(r, _turn, _run, info) {
        seen.push([name, info])
        return info?.final === false
          ? r
          : { ...r, content: [{ type: 'text', text: `final:${name}` }] }
      },
    })
    const run = createRunInfo()
    const mw = [spy('a'), spy('b')]
    const first = await runFinalize(mw, reply('x'), turn, run, { final: false, step: 1 })
    expect(first.content).toEqual([{ type: 'text', text: 'x' }])
    const last = await runFinalize(mw, reply('y'), turn, run, { final: true, step: 2 })
    expect(last.content).toEqual([{ type: 'text', text: 'final:a' }])
    expect(seen).toEqual([
      ['b', { final: false, step: 1 }],
      ['a', { final: false, step: 1 }],
      ['b', { final: true, step: 2 }],
      ['a', { final: true, step: 2 }],
    ])
    await runFinalize(mw, reply('z'), turn, run)
    expect(seen.at(-1)).toEqual(['a', undefined])
  })
})

describe('runRecover', () => {
  const turn = createTurnContext({ model: getModelInfo('claude-haiku-4-5'), prefill: 'Sure' })
  const dropPrefill = (name: string, log: string[]): ContextMiddleware => ({
    name,
    recover(error, t) {
      log.push(`${name}:${String(error)}`)
      if (t.prefill === undefined) return undefined
      const { prefill: _p, ...rest } = t
      return rest
    },
  })

  test('the first middleware that returns a turn wins; its name is reported', async () => {
    const log: string[] = []
    const passing: ContextMiddleware = {
      name: 'passing',
      recover(error) {
        log.push(`passing:${String(error)}`)
        return undefined
      },
    }
    const mw = [{ name: 'plain' }, passing, dropPrefill('fixer', log), dropPrefill('late', log)]
    const found = await runRecover(mw, 'boom', turn, createRunInfo())
    expect(found?.by).toBe('fixer')
    expect(found?.turn.prefill).toBeUndefined()
    expect(log).toEqual(['passing:boom', 'fixer:boom'])
  })

  test('names in `tried` are skipped, so each middleware is offered an error once per call', async () => {
    const log: string[] = []
    const mw = [dropPrefill('fixer', log)]
    expect(await runRecover(mw, 'again', turn, createRunInfo(), new Set(['fixer']))).toBeUndefined()
    expect(log).toEqual([])
  })

  test('a recoverable error thrown by recover is a warning; any other error propagates', async () => {
    const trace = memoryTrace()
    const run = createRunInfo({ trace })
    const flaky: ContextMiddleware = {
      name: 'flaky',
      recover() {
        throw new FeatureOffError('no idea', { recoverable: true })
      },
    }
    const log: string[] = []
    const found = await runRecover([flaky, dropPrefill('fixer', log)], 'e', turn, run)
    expect(found?.by).toBe('fixer')
    expect(trace.byStage(CORE_TRACE_STAGES.warning)[0]?.data).toMatchObject({
      source: 'flaky.recover',
      code: 'feature_off',
    })
    const fatal: ContextMiddleware = {
      name: 'fatal',
      recover() {
        throw new FeatureOffError('stop the run')
      },
    }
    await expect(runRecover([fatal], 'e', turn, run)).rejects.toThrow('stop the run')
  })
})

describe('runPrepareStep', () => {
  const base = createTurnContext({ model: getModelInfo('claude-haiku-4-5') })
  const info = { step: 2, newMessages: [textMessage('user', 'hi')] }
  const note = (name: string): ContextMiddleware => ({
    name,
    prepareStep: (turn, _run, i) => ({ ...turn, vars: { ...turn.vars, [name]: i.step } }),
  })

  test('runs every prepareStep in order on the previous result, with the step info', async () => {
    const seen: unknown[] = []
    const last: ContextMiddleware = {
      name: 'last',
      prepareStep(turn, _run, i) {
        seen.push(turn.vars, i)
        return turn
      },
    }
    const out = await runPrepareStep(
      [note('a'), { name: 'none' }, note('b'), last],
      base,
      createRunInfo(),
      info,
    )
    expect(out.vars).toEqual({ a: 2, b: 2 })
    expect(seen).toEqual([{ a: 2, b: 2 }, info])
    expect(base.vars).toEqual({})
  })

  test('a recoverable error is a warning and the turn goes on; a non-object return is typed', async () => {
    const trace = memoryTrace()
    const run = createRunInfo({ trace })
    const off: ContextMiddleware = {
      name: 'off',
      prepareStep() {
        throw new FeatureOffError('later', { recoverable: true })
      },
    }
    const out = await runPrepareStep([off, note('a')], base, run, info)
    expect(out.vars).toEqual({ a: 2 })
    expect(trace.byStage(CORE_TRACE_STAGES.warning)[0]?.data).toMatchObject({
      source: 'off.prepareStep',
    })
    const broken: ContextMiddleware = { name: 'broken', prepareStep: () => null as never }
    await expect(runPrepareStep([broken], base, run, info)).rejects.toThrow(
      /broken\.prepareStep: return value must be a TurnContext/,
    )
    await expect(runPrepareStep([], base, run, null as never)).rejects.toThrow(/info/)
  })
})

describe('run state', () => {
  test('notes are kept per run under the middleware name, apart from turn.vars', () => {
    const a = createRunInfo()
    const b = createRunInfo()
    setRunState(a, 'prefill', { text: 'Sure' })
    expect(getRunState(a, 'prefill')).toEqual({ text: 'Sure' })
    expect(getRunState(b, 'prefill')).toBeUndefined()
    expect(a.state.get('prefill')).toEqual({ text: 'Sure' })
    setRunState(a, 'prefill', undefined)
    expect(a.state.has('prefill')).toBe(false)
  })

  test('a plain run object without a state map gets one on first write', () => {
    const plain = { runId: 'r', trace: memoryTrace() } as unknown as RunInfo
    expect(getRunState(plain, 'x')).toBeUndefined()
    setRunState(plain, 'x', 1)
    expect(getRunState(plain, 'x')).toBe(1)
  })
})
