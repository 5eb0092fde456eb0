import { textMessage } from '@contextkit/core'
import { bench, describe } from 'vitest'
import { runAgent } from '../src/run/run-agent.js'
import { aiSdkRun, aiSdkTools, instantModel, toModelMessages } from './ai-sdk-peer.js'
import { history, instantProvider, tools } from './fixtures.js'

const past = history(200)
const toolset = tools(20)
const question = textMessage('user', 'Which files parse orders?')
const peerMessages = toModelMessages([...past, question])
const peerTools = aiSdkTools(20)

// Loop overhead per model call = (time of a run) / (model calls in it). The provider answers in
// process at once, so what is measured is the loop: options, prepare, budget fitting, formatting,
// stream folding, tool validation and execution, finalize, events.
describe('runAgent, 200-message history, 20 tools (in-process provider)', () => {
  const ten = instantProvider(10)
  bench(
    '10 model calls per run (9 tool round trips)',
    async () => {
      const result = await runAgent({
        provider: ten,
        model: 'claude-haiku-4-5',
        messages: [...past, question],
        tools: toolset,
      }).result
      if (result.steps !== 10) throw new Error(`expected 10 calls, got ${result.steps}`)
    },
    { time: 3000, warmupIterations: 20 },
  )

  // the peer: the AI SDK's generateText loop over the same history, tools and replies
  const tenPeer = instantModel(10)
  bench(
    'AI SDK 7 generateText: 10 model calls per run (9 tool round trips)',
    () => aiSdkRun(tenPeer, peerMessages, peerTools, 10),
    { time: 3000, warmupIterations: 20 },
  )

  const one = instantProvider(1)
  bench(
    '1 model call per run',
    async () => {
      const result = await runAgent({
        provider: one,
        model: 'claude-haiku-4-5',
        messages: [...past, question],
        tools: toolset,
      }).result
      if (result.steps !== 1) throw new Error(`expected 1 call, got ${result.steps}`)
    },
    { time: 3000, warmupIterations: 20 },
  )

  const onePeer = instantModel(1)
  bench(
    'AI SDK 7 generateText: 1 model call per run',
    () => aiSdkRun(onePeer, peerMessages, peerTools, 1),
    { time: 3000, warmupIterations: 20 },
  )
})
