import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  createRunInfo,
  createTurnContext,
  getModelInfo,
  getRunState,
  type MemoryTrace,
  memoryTrace,
  type RunInfo,
  runFinalize,
  runPrepare,
  setRunState,
  type TurnContext,
  textMessage,
  textOf,
  ValidationError,
} from '@contextkit/core'
import fc from 'fast-check'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { reply } from '../../../test-utils/messages.js'
import { PrefillRejectedError } from './errors.js'
import { prefill } from './middleware.js'
import { PREFILL_STATE_KEY, PREFILL_TRACE_STAGES } from './names.js'

const REJECTION = {
  type: 'error',
  error: {
    type: 'invalid_request_error',
    message:
      'This model does not support assistant message prefill. The conversation must end with a user message.',
  },
  request_id: 'req_011',
}

/** Shaped like @anthropic-ai/sdk's BadRequestError. */
class BadRequestError extends Error {
  readonly status = 400
  readonly headers = new Headers({ 'request-id': 'req_011' })
  readonly requestID = 'req_011'
  constructor(readonly error: unknown) {
    super(`400 ${JSON.stringify(error)}`)
    this.name = 'BadRequestError'
  }
}

let ws: string
let trace: MemoryTrace
let run: RunInfo
beforeEach(async () => {
  ws = await mkdtemp(join(tmpdir(), 'prefill-mw-'))
  trace = memoryTrace()
  run = createRunInfo({ workspace: ws, trace })
})
afterEach(async () => {
  await rm(ws, { recursive: true, force: true })
})

function turnFor(modelId: string, extra: Partial<TurnContext> = {}): TurnContext {
  return createTurnContext({
    model: getModelInfo(modelId),
    messages: [
      textMessage('user', 'Hi'),
      textMessage('assistant', 'Hello'),
      textMessage('user', 'Q?'),
    ],
    ...extra,
  })
}

describe('prefill middleware', () => {
  it('native models: prepare sets turn.prefill and records session:prefill-injected', async () => {
    await writeFile(join(ws, 'PREFILL.md'), 'Let me think step by step.\n')
    const mw = prefill()
    const turn = turnFor('claude-haiku-4-5')
    const prepared = await runPrepare([mw], turn, run)
    expect(prepared.prefill).toBe('Let me think step by step.')
    expect(prepared.messages).toEqual(turn.messages)
    expect(turn.prefill).toBeUndefined() // input not mutated
    expect(prepared.vars).toEqual({})
    expect(getRunState(run, PREFILL_STATE_KEY)).toEqual({
      text: 'Let me think step by step.',
      mode: 'native',
      placement: 'turn',
      source: join(ws, 'PREFILL.md'),
    })
    const [event] = trace.byStage('session:prefill-injected')
    expect(event?.data).toMatchObject({
      prefill: 'Let me think step by step.',
      mode: 'native',
      placement: 'turn',
      model: 'claude-haiku-4-5',
      step: 1,
    })
    // the messages as sent: the history, then the prefill as the open assistant turn
    expect(event?.data.messages).toEqual([
      ...turn.messages,
      textMessage('assistant', 'Let me think step by step.'),
    ])
  })

  it("placement 'messages' appends the assistant message instead", async () => {
    await writeFile(join(ws, 'PREFILL.md'), 'Answer:')
    const prepared = await runPrepare(
      [prefill({ placement: 'messages' })],
      turnFor('claude-haiku-4-5'),
      run,
    )
    expect(prepared.prefill).toBeUndefined()
    expect(prepared.messages.at(-1)).toEqual(textMessage('assistant', 'Answer:'))
  })

  for (const stopReason of ['end_turn', 'max_tokens', 'tool_use', 'aborted', 'error'] as const) {
    it(`finalize strips the prefill (stopReason ${stopReason}) and records both texts`, async () => {
      await writeFile(join(ws, 'PREFILL.md'), 'Let me think step by step.')
      const mw = prefill()
      const prepared = await runPrepare([mw], turnFor('claude-haiku-4-5'), run)
      const full = reply('Let me think step by step. 2+2 is 4.', stopReason)
      const out = await runFinalize([mw], full, prepared, run)
      expect(textOf(out)).toBe('2+2 is 4.')
      expect(out.stopReason).toBe(stopReason)
      expect(trace.byStage('session:prefill-stripped')[0]?.data).toEqual({
        original: 'Let me think step by step. 2+2 is 4.',
        stripped: '2+2 is 4.',
        match: 'exact',
        mode: 'native',
        stopReason,
        step: 1,
      })
    })
  }

  it('property: whatever the stop reason, the saved reply no longer carries the prefill', async () => {
    const mw = prefill()
    const stopReasons = ['end_turn', 'max_tokens', 'tool_use', 'aborted', 'error'] as const
    await fc.assert(
      fc.asyncProperty(
        fc.string({ minLength: 1, maxLength: 40 }).filter((s) => s.trim() !== ''),
        fc.constantFrom(' ', '\n', '\n\n', ''),
        fc.string({ maxLength: 60 }),
        fc.constantFrom(...stopReasons),
        fc.boolean(),
        async (raw, sep, rest, stopReason, supported) => {
          const turn = turnFor('claude-haiku-4-5', { prefill: raw })
          const model = { ...turn.model, supportsPrefill: supported }
          const prepared = await runPrepare([mw], { ...turn, model }, run)
          const sent = raw.trim()
          const out = await runFinalize([mw], reply(sent + sep + rest, stopReason), prepared, run)
          const expected = (sent + sep + rest).slice(sent.length).trimStart()
          expect(textOf(out)).toBe(expected)
          expect(out.content.every((b) => b.type !== 'text' || b.text !== '')).toBe(true)
        },
      ),
      { numRuns: 200 },
    )
  })

  it('finalize leaves a reply that does not start with the prefill unchanged', async () => {
    await writeFile(join(ws, 'PREFILL.md'), 'Let me think.')
    const mw = prefill()
    const prepared = await runPrepare([mw], turnFor('claude-haiku-4-5'), run)
    const continuation = reply(' First, 2+2 = 4.')
    expect(await runFinalize([mw], continuation, prepared, run)).toBe(continuation)
    expect(trace.byStage('session:prefill-stripped')[0]?.data.match).toBe('none')
  })

  it("models that reject prefill: 'instruct' moves it into the last user turn and strips it back", async () => {
    await writeFile(join(ws, 'PREFILL.md'), 'Let me think step by step.')
    const mw = prefill()
    const turn = turnFor('claude-sonnet-4-6')
    const prepared = await runPrepare([mw], turn, run)
    expect(prepared.prefill).toBeUndefined()
    expect(prepared.messages).toHaveLength(3)
    expect(prepared.messages.at(-1)?.role).toBe('user')
    expect(textOf(prepared.messages.at(-1)!)).toContain('Let me think step by step.')
    expect(turn.messages.at(-1)).toEqual(textMessage('user', 'Q?'))
    expect(trace.byStage('session:prefill-injected')[0]?.data).toMatchObject({
      mode: 'instruct',
      reason: 'model',
    })
    const out = await runFinalize(
      [mw],
      reply('Let me think  step by\nstep.\n\nQ is a letter.'),
      prepared,
      run,
    )
    expect(textOf(out)).toBe('Q is a letter.')
    expect(trace.byStage('session:prefill-stripped')[0]?.data.match).toBe('normalized')
  })

  it("'skip' sends nothing and records why; 'error' throws PrefillRejectedError", async () => {
    await writeFile(join(ws, 'PREFILL.md'), 'Let me think.')
    const turn = turnFor('claude-opus-4-6')
    const skipped = await runPrepare([prefill({ onUnsupported: 'skip' })], turn, run)
    expect(skipped.messages).toEqual(turn.messages)
    expect(skipped.prefill).toBeUndefined()
    expect(trace.byStage('session:prefill-skipped')[0]?.data).toMatchObject({ reason: 'model' })
    await expect(runPrepare([prefill({ onUnsupported: 'error' })], turn, run)).rejects.toSatisfy(
      (e) => PrefillRejectedError.isInstance(e),
    )
  })

  it('falls back while extended thinking is on (turn.thinking)', async () => {
    await writeFile(join(ws, 'PREFILL.md'), 'Hmm.')
    const mw = prefill()
    for (const thinking of [{ enabled: true }, { enabled: true, budgetTokens: 2048 }]) {
      const prepared = await runPrepare([mw], turnFor('claude-haiku-4-5', { thinking }), run)
      expect(prepared.prefill).toBeUndefined()
      expect(getRunState(run, PREFILL_STATE_KEY)).toMatchObject({ mode: 'instruct' })
    }
    const off = await runPrepare(
      [mw],
      turnFor('claude-haiku-4-5', { thinking: { enabled: false } }),
      run,
    )
    expect(off.prefill).toBe('Hmm.')
    const custom = prefill({ isThinking: () => true })
    expect((await runPrepare([custom], turnFor('claude-haiku-4-5'), run)).prefill).toBeUndefined()
  })

  it('an unreadable PREFILL.md is a warning in the trace and the turn goes on unchanged', async () => {
    await mkdir(join(ws, 'PREFILL.md'))
    const turn = turnFor('claude-haiku-4-5')
    const prepared = await runPrepare([prefill()], turn, run)
    expect(prepared).toBe(turn)
    const [warning] = trace.byStage('warning')
    expect(warning?.data).toMatchObject({ source: 'prefill', code: 'prefill_read_failed' })
    expect(trace.byStage('session:prefill-injected')).toEqual([])
  })

  it('a failing dynamic module is a warning too', async () => {
    await writeFile(
      join(ws, 'PREFILL.mjs'),
      'export const generate = () => { throw new Error("x") }',
    )
    const turn = turnFor('claude-haiku-4-5')
    expect(await runPrepare([prefill()], turn, run)).toBe(turn)
    expect(trace.byStage('warning')[0]?.data).toMatchObject({ code: 'prefill_generate_failed' })
  })

  it('a dynamic module sees the model, the history and the run', async () => {
    await writeFile(
      join(ws, 'PREFILL.mjs'),
      'export const generate = ({ model, history, context }) =>\n' +
        '  [model.family, history.length, context.runId].join(":")',
    )
    const prepared = await runPrepare([prefill()], turnFor('claude-haiku-4-5'), run)
    expect(prepared.prefill).toBe(`haiku:3:${run.runId}`)
  })

  it('is off without a workspace, when disabled, and when there is no file', async () => {
    const turn = turnFor('claude-haiku-4-5')
    const noWorkspace = createRunInfo({ trace })
    expect(await runPrepare([prefill()], turn, noWorkspace)).toBe(turn)
    await writeFile(join(ws, 'PREFILL.md'), 'x')
    expect(await runPrepare([prefill({ enabled: false })], turn, run)).toBe(turn)
    expect(await runPrepare([prefill({ workspace: join(ws, 'empty') })], turn, run)).toBe(turn)
    expect(trace.events).toEqual([])
  })

  it('an explicit turn.prefill wins and is still routed by the model', async () => {
    await writeFile(join(ws, 'PREFILL.md'), 'from file')
    const mw = prefill()
    const native = await runPrepare(
      [mw],
      turnFor('claude-haiku-4-5', { prefill: 'explicit  ' }),
      run,
    )
    expect(native.prefill).toBe('explicit')
    const instructed = await runPrepare(
      [mw],
      turnFor('claude-sonnet-4-6', { prefill: 'explicit' }),
      run,
    )
    expect(instructed.prefill).toBeUndefined()
    expect(textOf(instructed.messages.at(-1)!)).toContain('explicit')
  })

  it('uses per-model files through the turn model', async () => {
    await writeFile(join(ws, 'PREFILL.md'), 'base')
    await writeFile(join(ws, 'PREFILL.haiku.md'), 'haiku only')
    expect((await runPrepare([prefill()], turnFor('claude-haiku-4-5'), run)).prefill).toBe(
      'haiku only',
    )
    expect((await runPrepare([prefill()], turnFor('claude-opus-4-1'), run)).prefill).toBe('base')
  })

  it('ephemeral: false keeps the prefill in the saved reply', async () => {
    await writeFile(join(ws, 'PREFILL.md'), 'Answer:')
    const mw = prefill({ ephemeral: false })
    const prepared = await runPrepare([mw], turnFor('claude-haiku-4-5'), run)
    const out = await runFinalize([mw], reply(' 42'), prepared, run)
    expect(textOf(out)).toBe('Answer: 42')
    expect(trace.byStage('session:prefill-kept')).toHaveLength(1)
  })

  it('finalize acts on the first model call of a turn only, whatever reply is final', async () => {
    await writeFile(join(ws, 'PREFILL.md'), 'Let me think.')
    const mw = prefill()
    const prepared = await runPrepare([mw], turnFor('claude-haiku-4-5'), run)
    const first = reply('Let me think. I will read it.', 'tool_use')
    const stripped = await runFinalize([mw], first, prepared, run, { final: false, step: 1 })
    expect(textOf(stripped)).toBe('I will read it.')
    // a later reply that happens to start with the same words is the model's own
    const later = reply('Let me think. The answer is 4.')
    expect(await runFinalize([mw], later, prepared, run, { final: true, step: 2 })).toBe(later)
    expect(trace.byStage(PREFILL_TRACE_STAGES.stripped)).toHaveLength(1)
  })

  it('exports its trace stage names', () => {
    expect(PREFILL_TRACE_STAGES).toEqual({
      injected: 'session:prefill-injected',
      skipped: 'session:prefill-skipped',
      stripped: 'session:prefill-stripped',
      kept: 'session:prefill-kept',
      fallback: 'session:prefill-fallback',
    })
  })

  it('finalize ignores turns it did not prepare', async () => {
    const mw = prefill()
    const r = reply('Let me think. ok')
    expect(mw.finalize(r, turnFor('claude-haiku-4-5', { prefill: 'Let me think.' }), run)).toBe(r)
    setRunState(run, PREFILL_STATE_KEY, 'garbage')
    expect(mw.finalize(r, turnFor('claude-haiku-4-5'), run)).toBe(r)
  })

  it('validates its options', () => {
    expect(() => prefill({ onUnsupported: 'explode' as 'error' })).toThrow(ValidationError)
    expect(() => prefill({ placement: 'nowhere' as 'turn' })).toThrow(ValidationError)
    expect(prefill({ file: 'p.md' }).config.file).toBe('p.md')
  })
})

describe('recover() after a provider prefill 400', () => {
  async function preparedNative(mw = prefill(), modelId = 'claude-haiku-4-5') {
    await writeFile(join(ws, 'PREFILL.md'), 'Let me think.')
    // A model the table thinks accepts prefill, but the provider rejects it.
    return runPrepare([mw], turnFor(modelId), run)
  }

  it('falls back to the instruction once per run and records session:prefill-fallback', async () => {
    const mw = prefill()
    const prepared = await preparedNative(mw)
    expect(prepared.prefill).toBe('Let me think.')
    const error = new BadRequestError(REJECTION)
    const retry = mw.recover(error, prepared, run)
    expect(retry).toBeDefined()
    expect(retry?.prefill).toBeUndefined()
    expect(retry?.model.supportsPrefill).toBe(false)
    expect(getRunState(run, PREFILL_STATE_KEY)).toMatchObject({ mode: 'instruct', recovered: true })
    expect(textOf(retry!.messages.at(-1)!)).toContain('Let me think.')
    expect(trace.byStage('session:prefill-fallback')[0]?.data).toMatchObject({
      model: 'claude-haiku-4-5',
      mode: 'instruct',
    })
    // Once per run: a second rejection in the same run is the caller's to surface.
    expect(mw.recover(error, prepared, run)).toBeUndefined()
    // The reply of the retried call is stripped as usual.
    const out = mw.finalize(reply('Let me think. Done.'), retry!, run)
    expect(textOf(out)).toBe('Done.')
  })

  it('remembers the model: later prepares go straight to the fallback', async () => {
    const mw = prefill()
    const prepared = await preparedNative(mw)
    mw.recover(new BadRequestError(REJECTION), prepared, run)
    const later = createRunInfo({ workspace: ws, trace })
    const next = await runPrepare([mw], turnFor('claude-haiku-4-5'), later)
    expect(next.prefill).toBeUndefined()
    expect(getRunState(later, PREFILL_STATE_KEY)).toMatchObject({ mode: 'instruct' })
  })

  it("removes the appended message with placement 'messages', and 'skip' just drops it", async () => {
    const mw = prefill({ placement: 'messages', onUnsupported: 'skip' })
    await writeFile(join(ws, 'PREFILL.md'), 'Let me think.')
    const turn = turnFor('claude-haiku-4-5')
    const prepared = await runPrepare([mw], turn, run)
    expect(prepared.messages).toHaveLength(4)
    const retry = mw.recover(new BadRequestError(REJECTION), prepared, run)
    expect(retry?.messages).toEqual(turn.messages)
    expect(getRunState(run, PREFILL_STATE_KEY)).toBeUndefined()
    expect(trace.byStage('session:prefill-fallback')[0]?.data).toMatchObject({ mode: 'skip' })
  })

  it("throws PrefillRejectedError with onUnsupported: 'error', keeping the cause", async () => {
    const mw = prefill({ onUnsupported: 'error' })
    const prepared = await preparedNative(mw)
    const error = new BadRequestError(REJECTION)
    let caught: unknown
    try {
      mw.recover(error, prepared, run)
    } catch (e) {
      caught = e
    }
    expect(PrefillRejectedError.isInstance(caught)).toBe(true)
    expect((caught as Error).cause).toBe(error)
    expect((caught as PrefillRejectedError).details).toMatchObject({ by: 'provider' })
  })

  it('returns undefined for other errors and for turns without a native prefill', async () => {
    const mw = prefill()
    const prepared = await preparedNative(mw)
    const other = new BadRequestError({
      type: 'error',
      error: { type: 'invalid_request_error', message: 'max_tokens: too large' },
    })
    expect(mw.recover(other, prepared, run)).toBeUndefined()
    expect(mw.recover(new Error('socket hang up'), prepared, run)).toBeUndefined()
    expect(
      mw.recover(new BadRequestError(REJECTION), turnFor('claude-haiku-4-5'), run),
    ).toBeUndefined()
    expect(trace.byStage('session:prefill-fallback')).toEqual([])
  })
})
