import { mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { demoInProcess } from './demo-in-process.js'
import { demoProcess } from './demo-process.js'

// The demo's context file is read like preloaded files: inside the workspace, no symlink out.
// The run that reads a file outside is a real child process (node + tsx on the source), as users
// run the demo; the refusals need only the command line's logic (runDemoCli, which demo.ts wires
// to the process) and run here, without a tsx start (about 4 CPU-seconds on a loaded machine).
let base: string
beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'demo-context-file-'))
  await mkdir(join(base, 'outside'))
  await writeFile(join(base, 'outside', 'x.ndjson'), '{"secret_field_name":1}\n')
})
afterAll(() => rm(base, { recursive: true, force: true }))

/** The demo's command line in this process, run in `base`. */
const demoCli = (args: string[]) => demoInProcess(args, base)

/** A workspace that is not empty (so the demo template is not copied in). */
async function workspace(name: string): Promise<string> {
  const ws = join(base, name)
  await mkdir(join(ws, 'data'), { recursive: true })
  await writeFile(join(ws, 'AGENTS.md'), '# Agents\n')
  return ws
}

test('a workspace data/orders.ndjson symlinked outside is refused: one line, exit code 2', async () => {
  const ws = await workspace('linked')
  await symlink(join(base, 'outside', 'x.ndjson'), join(ws, 'data', 'orders.ndjson'))
  const r = await demoCli(['--workspace', ws, 'hi'])
  expect(r).toEqual({
    code: 2,
    stdout: '',
    stderr:
      'demo: context file data/orders.ndjson: is a symlink leading outside the root (context files are read inside the workspace; --allow-outside-context-file reads one elsewhere)\n',
  })
}, 120_000)

test('--context-file ../outside/x.ndjson is refused unless --allow-outside-context-file is typed', async () => {
  const ws = await workspace('plain')
  const refused = await demoCli(['--workspace', ws, '--context-file', '../outside/x.ndjson', 'hi'])
  expect(refused.code).toBe(2)
  expect(refused.stdout).toBe('')
  expect(refused.stderr).toMatch(/^demo: --context-file \.\.\/outside\/x\.ndjson: the path escapes/)
  expect(refused.stderr.trimEnd().split('\n')).toHaveLength(1)
  const allowed = await demoProcess([
    '--workspace',
    ws,
    '--context-file',
    '../outside/x.ndjson',
    '--allow-outside-context-file',
    '--json',
    'hi',
  ])
  expect(allowed.stderr).toBe('')
  expect(allowed.code).toBe(0)
  expect(allowed.stdout).toContain('secret_field_name') // the user asked for it: the hint names its fields
}, 120_000)

test('a workspace whose .contextkit/ is a symlink is refused up front: one line, exit code 2', async () => {
  const ws = await workspace('state-linked')
  await mkdir(join(base, 'state-outside'))
  await symlink(join(base, 'state-outside'), join(ws, '.contextkit'))
  const r = await demoCli(['--workspace', ws, 'hi'])
  expect(r).toEqual({
    code: 2,
    stdout: '',
    stderr: `demo: cannot use --workspace ${ws}: .contextkit is a symlink\n`,
  })
  expect(await readdir(join(base, 'state-outside'))).toEqual([])
}, 120_000)
