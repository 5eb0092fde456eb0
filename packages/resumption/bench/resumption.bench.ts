import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  createRunInfo,
  createTurnContext,
  getModelInfo,
  runPrepare,
  textMessage,
} from '@contextkit/core'
import { afterAll, bench, describe } from 'vitest'
import {
  addAnchor,
  buildResumptionSection,
  captureStreamTail,
  emptySelfState,
  type SelfState,
  stripInjected,
} from '../src/index.js'
import { loadSelfState, resumption, saveSelfState } from '../src/node.js'

const dir = mkdtempSync(join(tmpdir(), 'ck-resumption-bench-'))
const path = join(dir, 'self-state.json')
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const words = Array.from({ length: 20_000 }, (_, i) => `word${i % 997}`)
const reply100k = words.join(' ').slice(0, 100_000)
const injectedTail = words.slice(19_900).join(' ')

let state: SelfState = {
  ...emptySelfState('bench'),
  streamTail: {
    raw: captureStreamTail(reply100k),
    sessionKey: 'bench',
    capturedAt: new Date().toISOString(),
    tokenCount: 100,
    counterId: 'c',
  },
}
for (let i = 0; i < 5; i++) state = addAnchor(state, { raw: `anchor phrase number ${i}` })
await saveSelfState(path, state)

describe('capture', () => {
  bench('captureStreamTail, 100 KB reply, 100 tokens', () => {
    captureStreamTail(reply100k, { tokens: 100 })
  })
  bench('stripInjected, 100 KB reply against a 100-word injected tail', () => {
    stripInjected(reply100k, [injectedTail])
  })
})

describe('wake-up', () => {
  bench('buildResumptionSection, 300-token budget', () => {
    buildResumptionSection(
      { streamTail: state.streamTail?.raw, anchors: state.verbatimAnchors },
      { budgetTokens: 300 },
    )
  })
})

describe('state file', () => {
  bench('saveSelfState (lock, .bak, temp + fsync + rename)', async () => {
    await saveSelfState(path, state)
  })
  bench('loadSelfState', async () => {
    await loadSelfState(path)
  })
  const mw = resumption({ path })
  const turn = createTurnContext({
    model: getModelInfo('claude-sonnet-4-6'),
    messages: [textMessage('user', 'hi')],
  })
  bench('resumption() prepare (load + build + place)', async () => {
    await runPrepare([mw], turn, createRunInfo({ sessionId: 'other' }))
  })
})
