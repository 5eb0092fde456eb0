/**
 * `pnpm check:packages` (`scripts/check-packages.mjs`) fails what it should: copies of a real
 * package (worker, the smallest build) are broken one way each in a temp folder, packed with the
 * pinned pnpm as the script packs, and run through the script's two checks. The intact copy
 * passes both, so each failure below comes from its break.
 */
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { checkTarball, countedProblems, type Verdict } from '../../scripts/check-packages.mjs'
import { run } from './consumer.js'
import { pinnedPnpm } from './pnpm.js'
import { type PackageJson, ROOT } from './workspace.js'

const SOURCE = join(ROOT, 'packages', 'worker')
const NAME = '@contextkit/worker'

/** One way to break the package: a change to its package.json, and files to add beside it. */
interface Break {
  json?: (json: PackageJson) => void
  files?: Record<string, string>
}

const BREAKS: Record<string, Break> = {
  intact: {},
  // every `types` of the root entry names a file the build does not make
  'types path': {
    json: (json) => {
      for (const branch of Object.values(json.exports!['.'] as Record<string, object>)) {
        Object.assign(branch, { types: './dist/missing.d.ts' })
      }
    },
  },
  // an entry whose file exists in the folder but is left out of the tarball by `files`
  'entry not packed': {
    json: (json) => Object.assign(json.exports!, { './extra': './extra.js' }),
    files: { 'extra.js': 'export const extra = 1\n' },
  },
  // a publint warning (a URL where npm wants a shorthand), which --strict makes an error
  'publint warning': {
    json: (json) => Object.assign(json, { repository: 'https://github.com/contextkit/contextkit' }),
  },
}

/** A copy of the package with `broken` applied, packed: the tarball's path. */
async function packBroken(base: string, label: string, broken: Break): Promise<string> {
  const dir = join(base, label.replaceAll(' ', '-'))
  for (const entry of ['dist', 'README.md', 'CHANGELOG.md']) {
    await cp(join(SOURCE, entry), join(dir, entry), { recursive: true })
  }
  const json = JSON.parse(await readFile(join(SOURCE, 'package.json'), 'utf8')) as PackageJson
  // outside the workspace pnpm cannot pack `workspace:` ranges; the checks do not read them
  delete json.devDependencies
  json.peerDependencies = Object.fromEntries(
    Object.entries(json.peerDependencies ?? {}).map(([k, v]) => [k, v.replace('workspace:', '')]),
  )
  broken.json?.(json)
  await writeFile(join(dir, 'package.json'), JSON.stringify(json, null, 2))
  for (const [file, text] of Object.entries(broken.files ?? {})) {
    await writeFile(join(dir, file), text)
  }
  const { stdout } = await run(await pinnedPnpm(), ['pack', '--pack-destination', dir], {
    cwd: dir,
  })
  // its last line: the tarball's file name
  return join(dir, basename(stdout.trim().split('\n').at(-1)!))
}

describe('check:packages on broken copies of a package', () => {
  let base: string
  const verdicts = new Map<string, [Verdict, Verdict]>()

  beforeAll(async () => {
    base = await mkdtemp(join(tmpdir(), 'ck-broken-package-'))
    const labels = Object.keys(BREAKS)
    const tarballs = await Promise.all(labels.map((l) => packBroken(base, l, BREAKS[l]!)))
    for (const [i, label] of labels.entries()) {
      verdicts.set(label, await checkTarball(NAME, tarballs[i]!))
    }
  }, 240_000)

  afterAll(() => rm(base, { recursive: true, force: true }))

  it('passes the intact copy', () => {
    expect(verdicts.get('intact')!.map((v) => v.text)).toEqual([
      `ok   publint ${NAME}`,
      `ok   attw    ${NAME}`,
    ])
  })

  it('fails both checks when the types path names a missing file', () => {
    const [publint, attw] = verdicts.get('types path')!
    expect(publint.ok).toBe(false)
    expect(publint.text).toMatch(new RegExp(`^FAIL publint ${NAME}\nerror: .*missing\\.d\\.ts`))
    expect(attw.ok).toBe(false)
    expect(attw.text).toMatch(new RegExp(`^FAIL attw    ${NAME}\n`))
    // TypeScript falls through `types` to the JavaScript file's own `.d.ts`: a fallback condition
    expect(attw.text).toContain('"." under node16-esm')
  })

  it('fails both checks when an entry is not in the tarball', () => {
    const [publint, attw] = verdicts.get('entry not packed')!
    expect(publint.ok).toBe(false)
    expect(publint.text).toContain('extra.js')
    expect(attw.ok).toBe(false)
    expect(attw.text).toContain('Resolution failed: "./extra" under node16-esm')
  })

  it('fails publint on a warning (--strict); attw has nothing to say', () => {
    const [publint, attw] = verdicts.get('publint warning')!
    expect(publint.ok).toBe(false)
    expect(publint.text).toMatch(/\nerror: .*repository/)
    expect(attw.ok).toBe(true)
  })
})

describe("attw's node16 profile and ignored rule", () => {
  const at = (kind: string, resolutionKind: string) =>
    ({ kind, entrypoint: '.', resolutionKind }) as never

  it('counts every problem but cjs-resolves-to-esm and those under node10 only', () => {
    const kept = [at('NoResolution', 'node16-cjs'), at('UntypedResolution', 'bundler')]
    const pair = { kind: 'FalseCJS', typesFileName: 'a.d.ts', implementationFileName: 'a.js' }
    const problems = [
      ...kept,
      at('CJSResolvesToESM', 'node16-cjs'),
      at('NoResolution', 'node10'),
      pair as never,
    ]
    const analysis = { types: { kind: 'included' as const }, problems }
    expect(countedProblems(analysis)).toEqual([...kept, pair])
  })
})
