// CPU time of each middleware alone, per model call of a 10-call run: its `prepare` once and its
// `finalize` for steps 1–10 over the scenario's turn, repeated, timed with process.cpuUsage (the
// libuv threads' file work and the garbage collector included).
//   node --import tsx bench/split.ts [runs]
import { cpuUsage } from 'node:process'
import {
  type AssistantMessage,
  createRunInfo,
  createTurnContext,
  getModelInfo,
  memoryTrace,
  textMessage,
} from '@contextkit/core'
import { loopInputs, middlewareWorkspace } from './middleware-scenario.js'

const runs = Number(process.argv[2] ?? 500)
// only the middleware of this name (for a profile of one)
const only = process.argv[3]
const ws = await middlewareWorkspace()
const inputs = loopInputs()
const model = getModelInfo('claude-haiku-4-5')
const reply = (text: string): AssistantMessage => ({
  ...textMessage('assistant', text),
  role: 'assistant',
  stopReason: 'end_turn',
  usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 },
})

async function oneRun(index: number): Promise<void> {
  const m = ws.middleware[index]!
  const run = createRunInfo({ workspace: ws.dir, trace: memoryTrace() })
  const turn = createTurnContext({
    model,
    messages: [...inputs.past, inputs.question],
    tools: [],
  })
  const prepared = m.prepare ? await m.prepare(turn, run) : turn
  for (let step = 1; step <= 10; step++) {
    const text = step === 1 ? 'Let me look at the files first. Reading.' : 'Done, all read.'
    await m.finalize?.(reply(text), prepared, run, { final: step === 10, step })
  }
}

try {
  for (let i = 0; i < ws.middleware.length; i++) for (let r = 0; r < 200; r++) await oneRun(i)
  // a file written less than 2 s ago is read again every time (see preload's RACY_MS)
  await new Promise((resolve) => setTimeout(resolve, 2100))
  const rounds = 5
  const per = new Map<string, number[]>()
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < ws.middleware.length; i++) {
      const name = ws.middleware[i]!.name
      if (only !== undefined && name !== only) continue
      const c0 = cpuUsage()
      for (let r = 0; r < runs; r++) await oneRun(i)
      const c = cpuUsage(c0)
      per.set(name, [...(per.get(name) ?? []), (c.user + c.system) / 1000 / runs / 10])
    }
  }
  let total = 0
  for (const [name, xs] of per) {
    const median = [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
    total += median
    console.log(`${name.padEnd(18)} ${median.toFixed(4)} ms CPU per call (median of ${rounds})`)
  }
  console.log(`${'all four'.padEnd(18)} ${total.toFixed(4)} ms CPU per call`)
} finally {
  await ws.close()
}
