import { existsSync } from 'node:fs'
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  createRunInfo,
  createTokenCounter,
  createTurnContext,
  getModelInfo,
  getRunState,
  memoryTrace,
  renderSections,
  runFinalize,
  runPrepare,
  type Section,
  type TurnContext,
  textMessage,
  textOf,
} from '@contextkit/core'
import fc from 'fast-check'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { reply } from '../../../test-utils/messages.js'
import { addAnchor } from './capture.js'
import { INJECTED_START } from './injected-text.js'
import { resumption } from './middleware.js'
import { RESUMPTION_STATE_KEY, RESUMPTION_TRACE_STAGES } from './names.js'
import { emptySelfState, type SelfState } from './self-state.js'
import { loadSelfState, saveSelfState } from './state-file.js'

const model = getModelInfo('claude-sonnet-4-6')
let dir: string
let path: string
let now = Date.parse('2026-03-01T12:00:00.000Z')
const clock = () => now

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ck-resumption-mw-'))
  path = join(dir, 'self-state.json')
  now = Date.parse('2026-03-01T12:00:00.000Z')
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

const stable: Section[] = [
  { id: 'identity', text: 'You are a careful engineer.', priority: 100, cache: 'stable' },
  { id: 'tools', text: 'Tools: read, write.', priority: 90, cache: 'stable' },
  { id: 'date', text: 'Today is Sunday.', priority: 10, cache: 'volatile' },
]

function turn(): TurnContext {
  return createTurnContext({
    model,
    system: stable,
    messages: [textMessage('user', 'hello again')],
  })
}

async function seed(tail: string, anchors: string[] = [], sessionKey = 'prev'): Promise<void> {
  let state: SelfState = {
    ...emptySelfState(sessionKey, { now: clock }),
    streamTail: {
      raw: tail,
      sessionKey,
      capturedAt: new Date(now - 60_000).toISOString(),
      tokenCount: 5,
      counterId: 'c',
    },
  }
  for (const raw of anchors) state = addAnchor(state, { raw }, { now: clock })
  await saveSelfState(path, state, { now: clock })
}

describe('prepare', () => {
  test('adds a volatile section right after the stable ones; the cached prefix is unchanged', async () => {
    await seed('the migration script was half done', ['Keep the API small.'])
    const mw = resumption({ path, now: clock })
    const trace = memoryTrace()
    const out = await runPrepare([mw], turn(), createRunInfo({ sessionId: 'next', trace }))
    expect(out.system.map((s) => s.id)).toEqual(['identity', 'tools', 'resumption', 'date'])
    const section = out.system[2]!
    expect(section.cache).toBe('volatile')
    expect(section.text).toContain('the migration script was half done')
    expect(section.text).toContain('• "Keep the API small."')
    expect(renderSections(out.system.slice(0, 2))).toBe(renderSections(stable.slice(0, 2)))
    expect(out.messages).toEqual(turn().messages)
    expect(trace.byStage('resumption:injected')[0]?.data).toMatchObject({
      action: 'inject',
      placement: 'system',
      source: 'file',
    })
  })

  test('with no stable sections the block goes first', async () => {
    await seed('x y z')
    const t = createTurnContext({ model, system: [stable[2]!] })
    const out = await runPrepare([resumption({ path, now: clock })], t, createRunInfo())
    expect(out.system.map((s) => s.id)).toEqual(['resumption', 'date'])
  })

  test("placement 'message' puts a user message before the history", async () => {
    await seed('where was I')
    const out = await runPrepare(
      [resumption({ path, now: clock, placement: 'message' })],
      turn(),
      createRunInfo({ sessionId: 'next' }),
    )
    expect(out.system).toEqual(stable)
    expect(out.messages).toHaveLength(2)
    expect(out.messages[0]?.role).toBe('user')
    expect(textOf(out.messages[0]!)).toContain('where was I')
    expect(out.messages[1]).toEqual(turn().messages[0])
  })

  test('the token budget caps the whole block', async () => {
    const tail = Array.from({ length: 300 }, (_, i) => `word${i}`).join(' ')
    await seed(tail, ['alpha beta gamma', 'delta epsilon'])
    const counter = createTokenCounter({ model })
    const out = await runPrepare(
      [resumption({ path, now: clock, budgetTokens: 80, counter })],
      turn(),
      createRunInfo(),
    )
    const section = out.system.find((s) => s.id === 'resumption')!
    expect(counter.count(section.text)).toBeLessThanOrEqual(80)
    expect(section.text).toContain('word299')
  })

  test('empty or missing state: the turn is returned unchanged', async () => {
    const t = turn()
    const trace = memoryTrace()
    expect(await runPrepare([resumption({ path })], t, createRunInfo({ trace }))).toBe(t)
    expect(trace.byStage('resumption:skipped')[0]?.data).toMatchObject({
      action: 'skip',
      source: 'none',
    })
    expect(trace.byStage('warning')).toEqual([])
  })

  test('a corrupt state file: warning, turn unchanged, the file kept aside, no throw', async () => {
    await writeFile(path, '{"version":1,')
    const t = turn()
    const trace = memoryTrace()
    const out = await runPrepare([resumption({ path })], t, createRunInfo({ trace }))
    expect(out).toBe(t)
    expect(trace.byStage('warning')[0]?.data).toMatchObject({
      source: 'resumption.prepare',
      code: 'store_files_state_corrupt',
    })
    expect((await readdir(dir)).some((n) => n.startsWith('self-state.json.corrupt-'))).toBe(true)
  })

  test('no path and no workspace: a configuration warning, nothing else', async () => {
    const trace = memoryTrace()
    const t = turn()
    expect(await runPrepare([resumption()], t, createRunInfo({ trace }))).toBe(t)
    expect(trace.byStage('warning')[0]?.data).toMatchObject({ code: 'configuration_error' })
  })

  test('defaults the state file into the run workspace', async () => {
    const mw = resumption({ now: clock })
    const run = createRunInfo({ workspace: dir, sessionId: 's1' })
    await runFinalize([mw], reply('the words of the first session'), turn(), run)
    const file = join(dir, '.contextkit', 'self-state.json')
    expect((await loadSelfState(file)).state?.streamTail?.raw).toBe(
      'the words of the first session',
    )
  })

  test('a stale tail, or a changed branch, is dropped while anchors stay', async () => {
    await seed('old momentum', ['keep me'])
    const trace = memoryTrace()
    now += 25 * 3_600_000
    const out = await runPrepare(
      [resumption({ path, now: clock })],
      turn(),
      createRunInfo({ trace, sessionId: 'n' }),
    )
    const text = out.system.find((s) => s.id === 'resumption')!.text
    expect(text).not.toContain('old momentum')
    expect(text).toContain('keep me')
    expect(trace.byStage(RESUMPTION_TRACE_STAGES.injected)[0]?.data).toMatchObject({
      tailDropped: 'stale',
    })
  })

  test('cwd and branch are recorded at capture and compared at wake-up (lazy values)', async () => {
    let branch = 'main'
    const mw = resumption({ path, now: clock, cwd: '/repo', branch: async () => branch })
    await runFinalize([mw], reply('on main we were fixing X'), turn(), createRunInfo())
    const state = (await loadSelfState(path)).state!
    expect([state.cwd, state.branch]).toEqual(['/repo', 'main'])
    const same = await runPrepare([mw], turn(), createRunInfo({ sessionId: 'later' }))
    expect(same.system.some((s) => s.id === 'resumption')).toBe(true)
    branch = 'feature'
    const other = await runPrepare([mw], turn(), createRunInfo({ sessionId: 'later' }))
    expect(other.system.some((s) => s.id === 'resumption')).toBe(false)
  })
})

describe('finalize', () => {
  test('captures the tail of the final reply, saves it, and returns the reply unchanged', async () => {
    const mw = resumption({ path, now: clock, tailTokens: 20 })
    const r = reply(`${'earlier thoughts '.repeat(50)}and the last idea was to split the parser`)
    const trace = memoryTrace()
    const out = await runFinalize([mw], r, turn(), createRunInfo({ sessionId: 'sess', trace }))
    expect(out).toBe(r)
    const state = (await loadSelfState(path)).state!
    expect(state.streamTail?.raw.endsWith('and the last idea was to split the parser')).toBe(true)
    expect(state.streamTail?.sessionKey).toBe('sess')
    expect(state.streamTail!.tokenCount).toBeLessThanOrEqual(20)
    expect(trace.byStage('resumption:captured')[0]?.data).toMatchObject({
      action: 'capture',
      revision: 1,
    })
  })

  test('an aborted reply is captured too: that is exactly a thought in motion', async () => {
    const mw = resumption({ path, now: clock })
    await runFinalize([mw], reply('so the next step would be—', 'aborted'), turn(), createRunInfo())
    expect((await loadSelfState(path)).state?.streamTail?.raw).toBe('so the next step would be—')
  })

  test('an empty reply keeps the previous tail and writes nothing', async () => {
    await seed('previous tail')
    const mw = resumption({ path, now: clock })
    const trace = memoryTrace()
    await runFinalize([mw], reply(''), turn(), createRunInfo({ trace }))
    expect((await loadSelfState(path)).state?.streamTail?.raw).toBe('previous tail')
    expect(trace.byStage('resumption:capture-skipped')[0]?.data).toMatchObject({
      action: 'capture-skip',
    })
  })

  test('capture: false never writes', async () => {
    const mw = resumption({ path, capture: false })
    await runFinalize([mw], reply('words'), turn(), createRunInfo())
    expect(existsSync(path)).toBe(false)
  })

  test('an unwritable state path becomes a warning, never a throw', async () => {
    await writeFile(join(dir, 'file'), 'x')
    const mw = resumption({ path: join(dir, 'file', 'state.json') })
    const trace = memoryTrace()
    const r = reply('words')
    expect(await runFinalize([mw], r, turn(), createRunInfo({ trace }))).toBe(r)
    expect(trace.byStage('warning')[0]?.data).toMatchObject({ code: 'store_files_state_io' })
  })

  test('a reply that echoes the injected block does not capture it back', async () => {
    await seed('the cache key must include the model id and the tool list', ['Small steps.'])
    const mw = resumption({ path, now: clock })
    const run = createRunInfo({ sessionId: 'next' })
    const prepared = await runPrepare([mw], turn(), run)
    const injected = prepared.system.find((s) => s.id === 'resumption')!.text
    const echo = `${injected}\nYou said: "the cache key must include the model id and the tool list". Now the fresh part begins here.`
    await runFinalize([mw], reply(echo), prepared, run)
    const raw = (await loadSelfState(path)).state!.streamTail!.raw
    expect(raw).not.toContain('cache key')
    expect(raw).not.toContain(INJECTED_START)
    expect(raw).toContain('Now the fresh part begins here.')
  })

  test('a tool loop: only the final reply is captured, still without the injected text', async () => {
    await seed('the cache key must include the model id and the tool list', ['Small steps.'])
    const mw = resumption({ path, now: clock })
    const run = createRunInfo({ sessionId: 'next' })
    const prepared = await runPrepare([mw], turn(), run)
    // what was injected is noted in the run's state, not in turn.vars
    expect(prepared.vars).toEqual({})
    expect(getRunState(run, RESUMPTION_STATE_KEY)).toMatchObject({
      injected: expect.arrayContaining([
        'the cache key must include the model id and the tool list',
      ]),
    })
    const echo = (fresh: string) =>
      reply(`As I said, the cache key must include the model id and the tool list. ${fresh}`)
    const trace = memoryTrace()
    const traced = { ...run, trace }
    await runFinalize([mw], echo('First call reads the file.'), prepared, traced, {
      final: false,
      step: 1,
    })
    expect(trace.events.filter((e) => e.stage.startsWith('resumption:'))).toEqual([])
    expect((await loadSelfState(path)).state!.streamTail!.raw).toBe(
      'the cache key must include the model id and the tool list',
    )
    await runFinalize([mw], echo('Second call writes the answer.'), prepared, traced, {
      final: true,
      step: 2,
    })
    const raw = (await loadSelfState(path)).state!.streamTail!.raw
    expect(raw).not.toContain('cache key')
    expect(raw).toContain('Second call writes the answer.')
    expect(raw).not.toContain('First call')
  })
})

describe('no feedback loop across sessions', () => {
  test('property: each captured tail holds only words the model newly wrote', async () => {
    const session = fc.record({
      fresh: fc.integer({ min: 1, max: 40 }),
      echoes: fc.array(
        fc.record({
          at: fc.nat(),
          kind: fc.constantFrom('marked-block', 'plain-block', 'tail-run'),
          start: fc.nat(),
          length: fc.integer({ min: 6, max: 30 }),
        }),
        { maxLength: 3 },
      ),
      placement: fc.constantFrom('system', 'message') as fc.Arbitrary<'system' | 'message'>,
    })
    await fc.assert(
      fc.asyncProperty(fc.array(session, { minLength: 2, maxLength: 5 }), async (sessions) => {
        const sub = await mkdtemp(join(dir, 'loop-'))
        const file = join(sub, 'state.json')
        for (const [i, s] of sessions.entries()) {
          const mw = resumption({ path: file, now: clock, placement: s.placement, tailTokens: 60 })
          const run = createRunInfo({ sessionId: `session-${i}` })
          const prepared = await runPrepare([mw], turn(), run)
          const injectedText =
            s.placement === 'system'
              ? (prepared.system.find((x) => x.id === 'resumption')?.text ?? '')
              : prepared.messages.length > 1
                ? textOf(prepared.messages[0]!)
                : ''
          const previousTail = (await loadSelfState(file)).state?.streamTail?.raw ?? ''
          const freshWords = Array.from({ length: s.fresh }, (_, k) => `s${i}w${k}`)
          const parts: string[] = [...freshWords]
          for (const e of s.echoes) {
            let echo = ''
            if (e.kind === 'marked-block') echo = injectedText
            else if (e.kind === 'plain-block') echo = injectedText.replace(/[\u2063\u2064]/g, '')
            else {
              const ws = previousTail.split(/\s+/).filter(Boolean)
              if (ws.length >= 6) {
                const from = e.start % (ws.length - 5)
                echo = ws.slice(from, from + Math.max(6, e.length)).join(' ')
              }
            }
            if (echo) parts.splice(e.at % (parts.length + 1), 0, echo)
          }
          await runFinalize([mw], reply(parts.join(' ')), prepared, run)
          const tail = (await loadSelfState(file)).state!.streamTail!.raw
          const words = tail.split(/\s+/).filter(Boolean)
          expect(words.length).toBeGreaterThan(0)
          for (const w of words) expect(w).toMatch(new RegExp(`^s${i}w\\d+$`))
        }
        await rm(sub, { recursive: true, force: true })
      }),
      { numRuns: 25 },
    )
  }, 30_000)
})
