#!/usr/bin/env node
// Cold `import()` time of package entries: each sample is a fresh Node process that times one
// `await import(specifier)` (resolution, loading and evaluation of the whole module graph; under
// Node the `node` condition, so the bundled build in `dist/bundle/`). The subjects take turns
// sample by sample, so all of them see the same machine load. Prints the median and minimum of
// each, the ratio of the first specifier's to the second's, and the load average before and
// after (a busy machine inflates every figure, less so the ratios).
// Needs the packages built (`pnpm build`). Run from anywhere:
//   node scripts/cold-import.mjs [--runs N] [--against CHECKOUT] [specifier …]
// Default specifiers: @contextkit/agent-loop ai (issue 46's pair: agent-loop against the AI SDK).
// A `@contextkit/<name>` specifier is resolved from packages/<name> (which self-references its
// own entries), any other (ai, zod, zod/mini) from packages/agent-loop, which depends on it.
// `--against CHECKOUT` also times the first specifier in another built checkout of the
// repository (a worktree of main, say), in the same rotation.
import { spawnSync } from 'node:child_process'
import { loadavg } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const HERE = fileURLToPath(new URL('..', import.meta.url))

/** `--runs N`, `--against CHECKOUT` and the specifiers from the command line. */
function parseArgs(argv) {
  const args = [...argv]
  const option = (name) => {
    const at = args.indexOf(name)
    return at >= 0 ? args.splice(at, 2)[1] : undefined
  }
  const runs = Number(option('--runs') ?? 21)
  if (!Number.isInteger(runs) || runs < 1) throw new Error('--runs takes a positive integer')
  const against = option('--against')
  return { runs, against, specifiers: args.length ? args : ['@contextkit/agent-loop', 'ai'] }
}

/** The folder of `checkout` that a sample importing `specifier` starts in. */
function folderFor(checkout, specifier) {
  const own = /^@contextkit\/([^/]+)/.exec(specifier)?.[1]
  return join(checkout, 'packages', own ?? 'agent-loop')
}

/** One fresh process started in `cwd`: the milliseconds it spends in `await import(specifier)`. */
function sample({ specifier, cwd }) {
  const source = [
    'const t0 = performance.now()',
    `await import(${JSON.stringify(specifier)})`,
    'process.stdout.write(String(performance.now() - t0))',
  ].join('\n')
  const out = spawnSync(process.execPath, ['--input-type=module', '-e', source], {
    cwd,
    encoding: 'utf8',
  })
  if (out.status !== 0) throw new Error(`${specifier}: ${out.stderr}`)
  return Number(out.stdout)
}

/** The median of `values`. */
function median(values) {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

/** The 1-, 5- and 15-minute load averages, as `cat /proc/loadavg` shows them. */
function load() {
  return loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')
}

/** `runs` samples of every subject, taking turns; the samples per subject. */
function measure(subjects, runs) {
  for (const s of subjects) sample(s) // warm the file system cache: cold for V8 only
  const times = subjects.map(() => [])
  for (let i = 0; i < runs; i++) {
    for (const [at, s] of subjects.entries()) times[at].push(sample(s))
  }
  return times
}

/** `a`'s median and minimum over `b`'s. */
function ratios(a, b) {
  const ratio = (f) => (f(a) / f(b)).toFixed(2)
  return `median ${ratio(median)}×, min ${ratio((t) => Math.min(...t))}×`
}

const { runs, against, specifiers } = parseArgs(process.argv.slice(2))
const subjects = specifiers.map((specifier) => ({
  specifier,
  cwd: folderFor(HERE, specifier),
  label: specifier,
}))
if (against) {
  const label = `${specifiers[0]} in ${against}`
  subjects.push({ specifier: specifiers[0], cwd: folderFor(against, specifiers[0]), label })
}
console.log(`node ${process.version}, load average ${load()}, ${runs} samples each, alternated`)
const times = measure(subjects, runs)
const width = Math.max(...subjects.map((s) => s.label.length))
subjects.forEach((s, at) => {
  const med = median(times[at]).toFixed(1).padStart(6)
  const min = Math.min(...times[at])
    .toFixed(1)
    .padStart(6)
  console.log(`${s.label.padEnd(width)}  median ${med} ms   min ${min} ms`)
})
if (specifiers.length >= 2) {
  console.log(`${specifiers[0]} / ${specifiers[1]}: ${ratios(times[0], times[1])}`)
  if (against)
    console.log(`${subjects.at(-1).label} / ${specifiers[1]}: ${ratios(times.at(-1), times[1])}`)
}
console.log(`load average ${load()} (after)`)
