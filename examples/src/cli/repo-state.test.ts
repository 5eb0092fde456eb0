import { execFile } from 'node:child_process'
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { expect, test } from 'vitest'

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../../..')
const run = promisify(execFile)

test('what the demo writes inside the repository is ignored by git (README: --store pglite:./agent-db, --workspace packages/core)', async () => {
  const paths = [
    'agent-db/PG_VERSION',
    'packages/core/.contextkit/sessions/chat.jsonl',
    '.contextkit/trace.jsonl',
  ]
  const { stdout } = await run('git', ['check-ignore', ...paths], { cwd: repo })
  expect(stdout.trim().split('\n')).toEqual(paths)
})
