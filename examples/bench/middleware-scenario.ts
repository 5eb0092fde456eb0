// The agent-loop overhead scenario of issue 33 with the four feature middlewares (prefill,
// context-metadata, preload, resumption), shared by bench/middleware-overhead.bench.ts (figures
// for the READMEs) and bench/profile-middleware.ts (a CPU profile of the same runs). The provider
// answers in process at once, so what is measured is the loop and the middleware.
import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type AgentTool, defineTool, runAgent } from '@contextkit/agent-loop'
import { scriptedProvider } from '@contextkit/agent-loop/testing'
import { contextMetadata } from '@contextkit/context-metadata/node'
import { type ContextMiddleware, type Message, textMessage } from '@contextkit/core'
import { prefill } from '@contextkit/prefill/node'
import { preload } from '@contextkit/preload/node'
import { resumption } from '@contextkit/resumption/node'
// the history and tools are agent-loop's own overhead-bench fixtures, so both benches measure the same loop
import { history, prose, tools } from '../../packages/agent-loop/bench/fixtures.js'

export { history, tools }

/** A provider answering at once: `calls - 1` replies with a tool call each, then a text reply. */
export function instantProvider(calls: number) {
  let n = 0
  return scriptedProvider(
    () => {
      n++
      if (n % calls === 0) return 'Done. The orders are parsed in src/orders.ts.'
      return { text: 'Reading.', toolCalls: [{ name: 'tool_3', input: { path: `src/f${n}.ts` } }] }
    },
    { chunkChars: 1_000_000, record: false },
  )
}

/** The workspace the four middlewares read: bootstrap files, PREFILL.md, source files, NDJSON. */
export interface MiddlewareWorkspace {
  dir: string
  /** The four middlewares, built once (as a long-lived agent process does). */
  middleware: ContextMiddleware[]
  close(): Promise<void>
}

/** Write the workspace and build the middlewares over it. */
export async function middlewareWorkspace(): Promise<MiddlewareWorkspace> {
  const dir = await mkdtemp(join(tmpdir(), 'ck-mw-bench-'))
  await mkdir(join(dir, 'src'), { recursive: true })
  // about 2,000 words, as a real AGENTS.md
  await writeFile(join(dir, 'AGENTS.md'), `# Agents\n\n${prose(1, 12_000)}\n`)
  await writeFile(join(dir, 'SOUL.md'), `# Soul\n\n${prose(2, 1500)}\n`)
  await writeFile(join(dir, 'TOOLS.md'), `# Tools\n\n${prose(3, 2500)}\n`)
  await writeFile(join(dir, 'PREFILL.md'), 'Let me look at the files first.\n')
  // both preloaded files fit preload's default 5,000-token budget: nothing is omitted
  const lines = Array.from({ length: 120 }, (_, i) => `export const line${i} = '${prose(i, 60)}'`)
  await writeFile(join(dir, 'src', 'orders.ts'), `${lines.join('\n')}\n`)
  await writeFile(join(dir, 'src', 'parse.ts'), `${lines.slice(0, 60).join('\n')}\n`)
  const records = Array.from({ length: 2000 }, (_, i) =>
    JSON.stringify({ id: i, customer: `c${i % 97}`, total: (i * 7.31) % 1000, note: prose(i, 40) }),
  )
  await writeFile(join(dir, 'orders.ndjson'), `${records.join('\n')}\n`)
  await ageFiles(dir)
  const middleware: ContextMiddleware[] = [
    preload({ root: dir, references: ['src/orders.ts', 'src/parse.ts'] }),
    resumption({ path: join(dir, '.contextkit', 'self-state.json') }),
    contextMetadata({ file: join(dir, 'orders.ndjson') }),
    prefill({ workspace: dir }),
  ]
  return { dir, middleware, close: () => rm(dir, { recursive: true, force: true }) }
}

/**
 * Set every file under `dir` a minute in the past: a file changed within the stores' 2 s racy
 * window is read again on every call, which a real workspace's files (written long before the
 * run) are not.
 */
async function ageFiles(dir: string): Promise<void> {
  const past = new Date(Date.now() - 60_000)
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) await utimes(join(entry.parentPath, entry.name), past, past)
  }
}

/** The inputs of one run, built once. */
export interface LoopInputs {
  past: Message[]
  question: Message
  toolset: AgentTool[]
}

/** A history of `messages` messages (default 200), 20 tools and the question. */
export function loopInputs(messages = 200): LoopInputs {
  return {
    past: history(messages),
    question: textMessage('user', 'Which files parse orders?'),
    // made by the package's defineTool: tools it made are known to it (one frozen definition each)
    toolset: tools(20, defineTool),
  }
}

/** One run of `calls` model calls, with the given middleware (none for the bare loop). */
export async function runOnce(
  inputs: LoopInputs,
  provider: ReturnType<typeof instantProvider>,
  calls: number,
  workspace: string | undefined,
  middleware: ContextMiddleware[],
): Promise<void> {
  const result = await runAgent({
    provider,
    model: 'claude-haiku-4-5',
    messages: [...inputs.past, inputs.question],
    tools: inputs.toolset,
    middleware,
    ...(workspace ? { workspace } : {}),
  }).result
  if (result.steps !== calls) {
    throw new Error(`expected ${calls} calls, got ${result.steps} (${result.stopReason})`)
  }
}
