// An app on another version of core than the newest, with the lowest zod the packages support:
// core is repacked as 0.1.0 and 0.1.1 and served by the local registry with the other packages;
// the app installs prefill, formatters, `@contextkit/core@0.1.0` and `zod@4.0.0`, with pnpm and
// with npm. Core and zod being peers, the app must hold exactly one copy of each (the versions it
// asked for), prefill must see the app's `registerModel`, and prefill's errors must be the app's
// `ValidationError`. prefill's README example then runs on that install.
import { execFile } from 'node:child_process'
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { run } from './consumer.js'
import { type Manager, runInstallCommands, runReadmeExampleIn } from './install-lines.js'
import { type LocalRegistry, startLocalRegistry, tarballManifest } from './local-registry.js'
import { sharedPacks } from './packs.js'
import { publishablePackages } from './workspace.js'

const exec = promisify(execFile)
const APP_CORE = '0.1.0'
const NEWEST_CORE = '0.1.1'
const LOWEST_ZOD = '4.0.0'
const prefill = publishablePackages().find((p) => p.json.name === '@contextkit/prefill')!
let work = ''
let registry: LocalRegistry | undefined

/** A copy of the packed `tarball` with its version set to `version` (as a release would make). */
async function repack(tarball: string, version: string, into: string): Promise<string> {
  const dir = join(into, `repack-${version}`)
  await mkdir(dir)
  await exec('tar', ['-xzf', tarball, '-C', dir])
  const manifest = tarballManifest(tarball)
  const json = join(dir, 'package', 'package.json')
  await writeFile(json, `${JSON.stringify({ ...manifest, version }, null, 2)}\n`)
  const out = join(into, `contextkit-core-${version}.tgz`)
  await exec('tar', ['-czf', out, '-C', dir, 'package'])
  return out
}

/** Every installed copy of `name` under `dir`/node_modules (pnpm's store links resolved). */
async function copiesOf(dir: string, name: string): Promise<Map<string, string>> {
  const copies = new Map<string, string>()
  const files = await readdir(join(dir, 'node_modules'), { recursive: true, encoding: 'utf8' })
  for (const file of files) {
    if (!file.endsWith(join(...name.split('/'), 'package.json'))) continue
    const path = join(dir, 'node_modules', file)
    const json = JSON.parse(await readFile(path, 'utf8')) as { name?: string; version: string }
    if (json.name === name) copies.set(await realpath(path), json.version)
  }
  return copies
}

const CHECK = `import { registerModel, ValidationError } from '@contextkit/core'
import { modelFamily, prefillCandidates } from '@contextkit/prefill/node'
registerModel('acme-large', { family: 'acme' })
let error
try { prefillCandidates(42) } catch (e) { error = e }
process.stdout.write(JSON.stringify({
  family: modelFamily('acme-large'),
  validationError: error instanceof ValidationError,
  message: String(error?.message),
}))
`

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'ck-core-versions-'))
  const { packs } = await sharedPacks()
  const tarballs = (await readdir(packs)).map((f) => join(packs, f))
  const core = tarballs.find((t) => tarballManifest(t).name === '@contextkit/core')!
  const served = [
    ...tarballs.filter((t) => t !== core),
    await repack(core, APP_CORE, work),
    await repack(core, NEWEST_CORE, work),
  ]
  registry = await startLocalRegistry(served)
}, 600_000)

afterAll(async () => {
  await registry?.close()
  if (work) await rm(work, { recursive: true, force: true })
}, 120_000)

describe.each<Manager>(['pnpm', 'npm'])(
  `an app on core ${APP_CORE} (not the newest) and zod ${LOWEST_ZOD} (the lowest supported), with %s`,
  (manager) => {
    const dir = () => join(work, manager)

    test('installs one copy of core and of zod, the versions the app asked for', async () => {
      const specs = [
        '@contextkit/prefill',
        '@contextkit/formatters',
        `@contextkit/core@${APP_CORE}`,
        `zod@${LOWEST_ZOD}`,
      ]
      const line = `${manager} add ${specs.join(' ')}`
      await runInstallCommands(dir(), manager, [{ line, dev: false, specs }], registry!.npmrc)
      expect([...(await copiesOf(dir(), '@contextkit/core')).values()]).toEqual([APP_CORE])
      expect([...(await copiesOf(dir(), 'zod')).values()]).toEqual([LOWEST_ZOD])
    }, 240_000)

    test("prefill sees the app's registerModel and throws the app's ValidationError", async () => {
      await writeFile(join(dir(), 'check.mjs'), CHECK)
      const { stdout } = await run(process.execPath, ['check.mjs'], { cwd: dir() })
      const out = JSON.parse(stdout) as Record<string, unknown>
      expect(out).toMatchObject({ family: 'acme', validationError: true })
      expect(out.message).toMatch(/file/)
    }, 60_000)

    test("prefill's README example runs on that install", async () => {
      const { logs, expected } = await runReadmeExampleIn(prefill, dir())
      expect(logs).toEqual(expected)
    }, 120_000)
  },
)
