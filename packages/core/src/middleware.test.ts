import { describe, expect, test } from 'vitest'
import { ContextkitError } from './errors.js'
import { type AssistantMessage, emptyUsage, textMessage } from './messages.js'
import {
  type ContextMiddleware,
  createRunInfo,
  createTurnContext,
  runFinalize,
  runPrepare,
  type TurnContext,
} from './middleware.js'
import { getModelInfo } from './models.js'
import { memoryTrace } from './trace.js'

class FeatureOffError extends ContextkitError {
  static override readonly code = 'feature_off'
}

const reply = (text: string): AssistantMessage => ({
  role: 'assistant',
  content: [{ type: 'text', text }],
  stopReason: 'end_turn',
  usage: emptyUsage(),
})

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
})
