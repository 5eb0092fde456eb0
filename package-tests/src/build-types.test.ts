// `scripts/build-types.mjs`, a package's TypeScript step of `build`, on a small package made in a
// temporary folder: it reports a type error of a test file (the typecheck it replaces), writes
// the declarations of the published files only, and writes them as `tsc -p tsconfig.build.json`.
import { execFile } from 'node:child_process'
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { tempDir } from '../../test-utils/temp-dir.js'
import { ROOT } from './workspace.js'

const exec = promisify(execFile)
const SCRIPT = join(ROOT, 'scripts', 'build-types.mjs')
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc')

const FILES: Record<string, string> = {
  'tsconfig.json': JSON.stringify({
    extends: join(ROOT, 'tsconfig.base.json'),
    compilerOptions: { typeRoots: [join(ROOT, 'node_modules', '@types')] },
    include: ['src'],
  }),
  'tsconfig.build.json': JSON.stringify({
    extends: './tsconfig.json',
    compilerOptions: {
      noEmit: false,
      emitDeclarationOnly: true,
      outDir: 'dist',
      rootDir: 'src',
      sourceMap: false,
    },
    include: [],
    files: ['src/index.ts'],
  }),
  'package.json': JSON.stringify({ name: 'fixture', type: 'module' }),
  'src/index.ts':
    "export { shout } from './shout.js'\nexport type { Level } from './level/level.js'\n",
  'src/shout.ts':
    "import type { Level } from './level/level.js'\n/** Louder. */\nexport function shout(text: string, level: Level = 'b'): string {\n  return level === 'a' ? text : text.toUpperCase()\n}\n",
  'src/level/level.ts': "export type Level = 'a' | 'b'\n",
  'src/support.ts': 'export const onlyForTests = 1\n',
  'src/shout.test.ts':
    "import { onlyForTests } from './support.js'\nimport { shout } from './index.js'\nexport const wrong: number = shout('x') + onlyForTests\n",
}

let dir = ''
let cleanup = async () => {}

beforeAll(async () => {
  ;({ dir, cleanup } = await tempDir('build-types'))
  for (const [path, text] of Object.entries(FILES)) {
    await mkdir(join(dir, path, '..'), { recursive: true })
    await writeFile(join(dir, path), text)
  }
})

afterAll(() => cleanup())

/** Run `node build-types.mjs` in the fixture: its exit code and what it printed. */
async function buildTypes(): Promise<{ code: number; out: string }> {
  try {
    const { stdout } = await exec(process.execPath, [SCRIPT], { cwd: dir, encoding: 'utf8' })
    return { code: 0, out: stdout }
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string }
    return { code: e.code, out: `${e.stdout}${e.stderr}` }
  }
}

/** Every file under `folder`, by its path there, with its text. */
async function filesIn(folder: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {}
  for (const entry of await readdir(folder, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue
    const path = join(entry.parentPath, entry.name)
    out[path.slice(folder.length + 1)] = await readFile(path, 'utf8')
  }
  return out
}

test("a test file's type error fails the build, and the published declarations are written", async () => {
  const { code, out } = await buildTypes()
  expect(code).toBe(1)
  expect(out).toMatch(/src\/shout\.test\.ts\(3,14\): error TS2322/)
  expect(Object.keys(await filesIn(join(dir, 'dist'))).sort()).toEqual([
    'index.d.ts',
    'level/level.d.ts',
    'shout.d.ts',
  ])
}, 60_000)

test('with no error it exits 0, its declarations the same files and text as tsc -p tsconfig.build.json', async () => {
  await writeFile(
    join(dir, 'src/shout.test.ts'),
    "import { onlyForTests } from './support.js'\nimport { shout } from './index.js'\nexport const right: string = shout('x') + onlyForTests\n",
  )
  expect(await buildTypes()).toEqual({ code: 0, out: '' })
  await exec(process.execPath, [TSC, '-p', 'tsconfig.build.json', '--outDir', 'dist-tsc'], {
    cwd: dir,
  })
  const ours = await filesIn(join(dir, 'dist'))
  expect(ours['shout.d.ts']).toContain('export declare function shout(text: string, level?: Level)')
  expect(ours).toEqual(await filesIn(join(dir, 'dist-tsc')))
}, 60_000)
