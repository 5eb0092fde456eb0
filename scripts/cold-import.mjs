#!/usr/bin/env node
// Cold `import()` time of a package entry: each run is a fresh Node process that times one
// dynamic import (resolution, loading, and evaluation of the whole module graph; under Node the
// `node` condition, so the bundled build in `dist/bundle/`). Prints the min and the median of the
// runs and the load average, since a busy machine inflates both. Any `@contextkit/*` entry
// (`@contextkit/context-metadata/node`) or a dependency of agent-loop (zod) can be named.
// Needs the packages built (`pnpm build`). Run from the repository root.
// Usage: node scripts/cold-import.mjs [specifier …] [--runs N] [--against <checkout>]
//   default specifiers: @contextkit/agent-loop, @contextkit/core, zod, zod/mini
//   --against: also time the specifiers in another built checkout of the repository (a worktree
//   of main, say), alternating the runs so that both see the same machine load.
import { spawnSync } from 'node:child_process'
import { loadavg } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const args = process.argv.slice(2)
/** Remove `--name value` from `args`; the value, or `undefined`. */
function option(name) {
  const at = args.indexOf(name)
  return at >= 0 ? args.splice(at, 2)[1] : undefined
}
const runs = Number(option('--runs') ?? 15)
const against = option('--against')
const specifiers = args.length
  ? args
  : ['@contextkit/agent-loop', '@contextkit/core', 'zod', 'zod/mini']

// A `@contextkit/<name>` specifier runs from packages/<name>, which self-references its own
// entries; any other (zod, …) from packages/agent-loop, which depends on it.
const HERE = fileURLToPath(new URL('..', import.meta.url))
/** The folder of `checkout` that a run importing `specifier` starts in. */
function folderFor(checkout, specifier) {
  const own = /^@contextkit\/([^/]+)/.exec(specifier)?.[1]
  return join(checkout, 'packages', own ?? 'agent-loop')
}

/** One fresh process started in `cwd`: milliseconds spent in `await import(specifier)`. */
function timeOnce(specifier, cwd) {
  const source = [
    `const t0 = performance.now()`,
    `await import(${JSON.stringify(specifier)})`,
    `process.stdout.write(String(performance.now() - t0))`,
  ].join('\n')
  const out = spawnSync(process.execPath, ['--input-type=module', '-e', source], {
    cwd,
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

function report(label, times) {
  const min = Math.min(...times).toFixed(1)
  const med = median(times).toFixed(1)
  console.log(`${label.padEnd(44)} min ${min.padStart(6)} ms   median ${med.padStart(6)} ms`)
}

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')
console.log(`load average ${load()}, ${runs} runs each`)
for (const specifier of specifiers) {
  // warm the file system cache; the timed runs are cold for V8 only
  const inHere = folderFor(HERE, specifier)
  const inThere = against && folderFor(against, specifier)
  timeOnce(specifier, inHere)
  if (inThere) timeOnce(specifier, inThere)
  const here = []
  const there = []
  for (let i = 0; i < runs; i++) {
    here.push(timeOnce(specifier, inHere))
    if (inThere) there.push(timeOnce(specifier, inThere))
  }
  report(specifier, here)
  if (inThere) report(`${specifier} in ${against}`, there)
}
console.log(`load average ${load()} (after)`)
