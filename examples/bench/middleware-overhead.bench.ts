import { afterAll, beforeAll, bench, describe } from 'vitest'
import {
  aiSdkRun,
  aiSdkTools,
  instantModel,
  toModelMessages,
} from '../../packages/agent-loop/bench/ai-sdk-peer.js'
import {
  instantProvider,
  loopInputs,
  type MiddlewareWorkspace,
  middlewareWorkspace,
  runOnce,
} from './middleware-scenario.js'

// Loop overhead per model call = (time of a run) / 10, the bare loop beside the same loop with
// the four feature middlewares (preload, resumption, context-metadata, prefill) built once over a
// workspace on disk. For CPU time and alternating blocks (steadier on a loaded machine), and a
// CPU profile, run bench/profile-middleware.ts.
const inputs = loopInputs()
let ws: MiddlewareWorkspace
beforeAll(async () => {
  ws = await middlewareWorkspace()
})
afterAll(() => ws.close())

describe('runAgent per run of 10 model calls, 200 messages, 20 tools', () => {
  const bare = instantProvider(10)
  const full = instantProvider(10)
  bench('loop alone', () => runOnce(inputs, bare, 10, ws.dir, []), {
    time: 3000,
    warmupIterations: 20,
  })
  bench(
    'loop + prefill, context-metadata, preload, resumption',
    () => runOnce(inputs, full, 10, ws.dir, ws.middleware),
    { time: 3000, warmupIterations: 20 },
  )
  // the peer, with none of the four: the AI SDK's generateText over the same messages and tools
  const peer = instantModel(10)
  const peerMessages = toModelMessages([...inputs.past, inputs.question])
  const peerTools = aiSdkTools(20)
  bench('AI SDK 7 generateText alone', () => aiSdkRun(peer, peerMessages, peerTools, 10), {
    time: 3000,
    warmupIterations: 20,
  })
})
