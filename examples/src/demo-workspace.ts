import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { replaceWithinRoot } from '@contextkit/core/node'

/** The prefill text of the demo workspace (`PREFILL.md`). */
export const DEMO_PREFILL = "I'll analyze your request step by step."

/** Workspace-relative path of the demo's context file. */
export const DEMO_CONTEXT_FILE = 'data/orders.ndjson'

/** Workspace-relative path of the source file the model reads with `read_file`. */
export const DEMO_SOURCE_FILE = 'src/parse-orders.ts'

/** The demo's source file, as written to the workspace. */
export const DEMO_SOURCE = `import { readFileSync } from 'node:fs'

export interface Order { id: number; customer: string; total: number }

/** Parse an NDJSON orders file; blank lines are skipped. */
export function parseOrders(path: string): Order[] {
  return readFileSync(path, 'utf8')
    .split('\\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Order)
}

export function totalOf(orders: Order[]): number {
  return orders.reduce((sum, o) => sum + o.total, 0)
}
`

/** Workspace-relative path of the report script that uses the parser. */
export const DEMO_REPORT_FILE = 'src/report.ts'

const REPORT_SOURCE = `import { type Order, parseOrders, totalOf } from './parse-orders.js'

/** Totals per customer, largest first. */
export function totalsByCustomer(orders: Order[]): Array<[string, number]> {
  const totals = new Map<string, number>()
  for (const o of orders) totals.set(o.customer, (totals.get(o.customer) ?? 0) + o.total)
  return [...totals].sort((a, b) => b[1] - a[1])
}

const orders = parseOrders('data/orders.ndjson')
for (const [customer, total] of totalsByCustomer(orders)) console.log(\`\${customer}: \${total}\`)
console.log(\`all: \${totalOf(orders)}\`)
`

const FILES: Readonly<Record<string, string>> = {
  'README.md':
    '# orders\n\nA tiny order-report tool: `src/parse-orders.ts` reads the NDJSON orders in `data/orders.ndjson`, and `src/report.ts` prints the total per customer.\n',
  'AGENTS.md':
    '# Working agreement\n\n- Run `pnpm test` before you commit.\n- Keep functions small and named for what they do.\n- Read a file before you describe it.\n',
  'SOUL.md': 'You are Ada, a calm and direct pair programmer. You say what you checked.\n',
  'PREFILL.md': `${DEMO_PREFILL}\n`,
  [DEMO_CONTEXT_FILE]: [
    { id: 1, customer: 'Ann', total: 12.5, items: ['tea'] },
    { id: 2, customer: 'Bob', total: 40, items: ['coffee', 'mug'] },
    { id: 3, customer: 'Cy', total: 7.25, items: ['scone'] },
    { id: 4, customer: 'Ann', total: 18, items: ['beans'] },
  ]
    .map((o) => JSON.stringify(o))
    .join('\n')
    .concat('\n'),
  [DEMO_SOURCE_FILE]: DEMO_SOURCE,
  [DEMO_REPORT_FILE]: REPORT_SOURCE,
}

/** Every file of the demo template, workspace-relative, sorted. */
export const DEMO_TEMPLATE_FILES: readonly string[] = Object.keys(FILES).sort()

/** A demo workspace on disk. */
export interface DemoWorkspace {
  dir: string
  /** Absolute path of the NDJSON context file. */
  contextFile: string
  /** Remove the workspace. */
  cleanup(): Promise<void>
}

/**
 * Create the demo workspace: `AGENTS.md` and `SOUL.md` (bootstrap files), `PREFILL.md`, a
 * `README.md`, a small NDJSON context file and a small source tree (`src/parse-orders.ts`,
 * `src/report.ts`) for the tools. In a new temp directory unless
 * `dir` is given (it is created; existing files with these names are overwritten).
 */
export async function createDemoWorkspace(dir?: string): Promise<DemoWorkspace> {
  const root = dir ?? (await mkdtemp(join(tmpdir(), 'contextkit-demo-')))
  await mkdir(root, { recursive: true })
  // core's one write path: a link planted in a given `dir` is refused, never written through
  for (const [name, text] of Object.entries(FILES)) {
    await replaceWithinRoot(root, name, text, { fsync: false })
  }
  return {
    dir: root,
    contextFile: join(root, DEMO_CONTEXT_FILE),
    cleanup: () => rm(root, { recursive: true, force: true }),
  }
}
