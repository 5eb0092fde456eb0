#!/usr/bin/env node
// Cold `import()` time of a package root: each run is a fresh Node process that times one
// dynamic import (resolution, loading, and evaluation of the whole module graph). Prints the
// min and the median of the runs and the load average, since a busy machine inflates both.
// Needs the packages built (`pnpm build`). Run from the repository root.
// Usage: node scripts/cold-import.mjs [specifier …] [--runs N]
//   default specifiers: @contextkit/agent-loop, @contextkit/core, zod, zod/mini
import { spawnSync } from 'node:child_process'
import { loadavg } from 'node:os'
import { fileURLToPath } from 'node:url'

const args = process.argv.slice(2)
const runsAt = args.indexOf('--runs')
const runs = runsAt >= 0 ? Number(args.splice(runsAt, 2)[1]) : 15
const specifiers = args.length
  ? args
  : ['@contextkit/agent-loop', '@contextkit/core', 'zod', 'zod/mini']

// Run from packages/agent-loop, which depends on (or, for itself, self-references) every
// package named above.
const FROM = fileURLToPath(new URL('../packages/agent-loop/', import.meta.url))

/** One fresh process: milliseconds spent in `await import(specifier)`. */
function timeOnce(specifier) {
  const source = [
    `const t0 = performance.now()`,
    `await import(${JSON.stringify(specifier)})`,
    `process.stdout.write(String(performance.now() - t0))`,
  ].join('\n')
  const out = spawnSync(process.execPath, ['--input-type=module', '-e', source], {
    cwd: FROM,
    encoding: 'utf8',
  })
  if (out.status !== 0) throw new Error(`${specifier}: ${out.stderr}`)
  return Number(out.stdout)
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

console.log(
  `load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}, ${runs} runs each`,
)
for (const specifier of specifiers) {
  timeOnce(specifier) // warm the file system cache; the timed runs are cold for V8 only
  const times = Array.from({ length: runs }, () => timeOnce(specifier))
  const min = Math.min(...times).toFixed(1)
  console.log(
    `${specifier.padEnd(28)} min ${min.padStart(6)} ms   median ${median(times).toFixed(1).padStart(6)} ms`,
  )
}
console.log(
  `load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')} (after)`,
)
