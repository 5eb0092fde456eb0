// The window in force: the model's own with its source, or a smaller one a server stated.
import {
  createTokenCounter,
  getModelInfo,
  refreshModels,
  registerModel,
  textMessage,
} from '@contextkit/core'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { SUMMARY_SYSTEM_PROMPT, summaryMaxTokens } from '../compaction/summarize.js'
import { CONTEXT_WINDOW_ENTRY, learnedWindows, windowEntry } from '../session/window-entries.js'
import { describeWindow, RunWindows, windowSourceOf } from './context-window.js'

const haiku = getModelInfo('claude-haiku-4-5')

describe('RunWindows', () => {
  test('sources: table, option (a ModelInfo of your own, registerModel), models-api', () => {
    expect(windowSourceOf(haiku)).toBe('table')
    expect(windowSourceOf({ ...haiku, contextWindow: 20_000 })).toBe('option')
    registerModel('ctx-window-test-registered', { contextWindow: 30_000 })
    expect(windowSourceOf(getModelInfo('ctx-window-test-registered'))).toBe('option')
    refreshModels({ data: [{ id: 'ctx-window-test-listed', max_input_tokens: 40_000 }] })
    expect(windowSourceOf(getModelInfo('ctx-window-test-listed'))).toBe('models-api')
    expect(describeWindow({ tokens: 40_000, source: 'models-api' })).toBe(
      '40000-token context window (from the Models API)',
    )
  })

  test('a stated window replaces a larger one only, per model, and is saved once', () => {
    const windows = new RunWindows()
    expect(windows.of(haiku)).toEqual({ tokens: 200_000, source: 'table' })
    expect(windows.model(haiku)).toBe(haiku)
    expect(windows.learn(haiku, 20_000)).toEqual({ tokens: 200_000, source: 'table' })
    expect(windows.of(haiku)).toEqual({ tokens: 20_000, source: 'learned' })
    expect(windows.model(haiku).contextWindow).toBe(20_000)
    // a larger one, or the same, changes nothing
    expect(windows.learn(haiku, 30_000)).toBeUndefined()
    expect(windows.learn(haiku, 20_000)).toBeUndefined()
    expect(windows.of(getModelInfo('claude-opus-4-5')).source).toBe('table')
    expect(windows.takeUnsaved()).toEqual([{ model: 'claude-haiku-4-5', window: 20_000 }])
    expect(windows.takeUnsaved()).toEqual([])
    // a model whose own window is already smaller keeps its own
    const small = { ...haiku, contextWindow: 10_000 }
    expect(windows.of(small)).toEqual({ tokens: 10_000, source: 'option' })
    expect(windows.model(small)).toBe(small)
  })

  test('a session record starts the run with the window; bad records are passed over', () => {
    const now = new Date(0)
    const entries = [
      windowEntry({ model: 'claude-haiku-4-5', window: 30_000 }, null, now),
      windowEntry({ model: 'claude-haiku-4-5', window: 20_000 }, null, now),
      { ...windowEntry({ model: 'm', window: 1 }, null, now), data: { model: 'm', window: -5 } },
      { ...windowEntry({ model: 'm', window: 1 }, null, now), data: 'not an object' },
      { ...windowEntry({ model: 'm', window: 1 }, null, now), customType: 'note' },
    ]
    expect(entries[0]?.customType).toBe(CONTEXT_WINDOW_ENTRY)
    const learned = learnedWindows(entries)
    expect(learned).toEqual([{ model: 'claude-haiku-4-5', window: 20_000 }])
    const windows = new RunWindows(learned)
    expect(windows.of(haiku)).toEqual({ tokens: 20_000, source: 'learned' })
    expect(windows.takeUnsaved()).toEqual([])
  })
})

describe('summaryMaxTokens', () => {
  const counter = createTokenCounter({ model: haiku })
  const input = (conversation: string) => ({
    messages: [textMessage('user', 'x')],
    conversation,
    maxTokens: 0,
    signal: new AbortController().signal,
  })

  test('a tenth of the window in force, not of the table window', () => {
    expect(summaryMaxTokens(haiku, input('short'), counter)).toBe(20_000)
    expect(summaryMaxTokens({ ...haiku, contextWindow: 20_000 }, input('short'), counter)).toBe(
      2_000,
    )
  })

  test('property: within the output limit and what the window leaves after the request', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1_000, max: 300_000 }),
        fc.integer({ min: 1, max: 128_000 }),
        fc.integer({ min: 0, max: 400_000 }),
        (window, maxOutput, chars) => {
          const model = { ...haiku, contextWindow: window, maxOutput }
          const text = 'word '.repeat(Math.ceil(chars / 5))
          const n = summaryMaxTokens(model, input(text), counter)
          const prompt =
            counter.count(SUMMARY_SYSTEM_PROMPT) +
            counter.count(`<conversation>\n${text}\n</conversation>`)
          expect(n).toBeGreaterThanOrEqual(1)
          expect(n).toBeLessThanOrEqual(maxOutput)
          if (window - prompt >= 1) expect(n).toBeLessThanOrEqual(window - prompt)
          expect(n).toBeLessThanOrEqual(Math.max(256, Math.floor(window / 10)))
        },
      ),
      { numRuns: 60 },
    )
  })
})
