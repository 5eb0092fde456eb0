// Per-call overhead of the four middlewares, alternating bare / with-middleware blocks so load on
// a shared machine hits both alike, timed in wall clock and CPU time of the process. Run under a
// profiler to see where the time goes:
//   node --cpu-prof --cpu-prof-dir=/tmp/prof --import tsx bench/profile-middleware.ts [rounds] [bare|full]
import { cpuUsage } from 'node:process'
import { instantProvider, loopInputs, middlewareWorkspace, runOnce } from './middleware-scenario.js'

const CALLS = 10
const rounds = Number(process.argv[2] ?? 10)
// `bare` or `full` runs only that side (for a profile of one side); default both, alternating
const only = process.argv[3]
const runsPerBlock = 50

const inputs = loopInputs()
const ws = await middlewareWorkspace()
const bareProvider = instantProvider(CALLS)
const fullProvider = instantProvider(CALLS)

async function block(withMiddleware: boolean): Promise<{ wall: number; cpu: number }> {
  const cpu0 = cpuUsage()
  const t0 = performance.now()
  for (let i = 0; i < runsPerBlock; i++) {
    if (withMiddleware) await runOnce(inputs, fullProvider, CALLS, ws.dir, ws.middleware)
    else await runOnce(inputs, bareProvider, CALLS, ws.dir, [])
  }
  const wall = performance.now() - t0
  const cpu = cpuUsage(cpu0)
  const calls = runsPerBlock * CALLS
  return { wall: wall / calls, cpu: (cpu.user + cpu.system) / 1000 / calls }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN
try {
  await block(true) // warm-up: JIT, the resumption state written once
  await block(false)
  const bare: { wall: number; cpu: number }[] = []
  const full: { wall: number; cpu: number }[] = []
  for (let r = 0; r < rounds; r++) {
    if (only !== 'full') bare.push(await block(false))
    if (only !== 'bare') full.push(await block(true))
  }
  const fmt = (x: number) => x.toFixed(3)
  const mb = median(bare.map((b) => b.wall))
  const mf = median(full.map((b) => b.wall))
  const cb = median(bare.map((b) => b.cpu))
  const cf = median(full.map((b) => b.cpu))
  console.log(
    `per model call (10 calls a run, ${rounds} alternating blocks of ${runsPerBlock} runs)`,
  )
  console.log(`  loop alone:          wall ${fmt(mb)} ms   cpu ${fmt(cb)} ms`)
  console.log(`  loop + four:         wall ${fmt(mf)} ms   cpu ${fmt(cf)} ms`)
  console.log(`  the four's share:    wall ${fmt(mf - mb)} ms   cpu ${fmt(cf - cb)} ms`)
} finally {
  await ws.close()
}
