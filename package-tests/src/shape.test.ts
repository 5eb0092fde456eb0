// Every publishable package has the shape described under "Package shape" in the root README.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, expect, test } from 'vitest'
import { entrySources, NODE_BUILD_DIR } from '../../tsup.base.js'
import { isNodeBuiltin } from './bundle.js'
import { packageOf } from './consumer.js'
import { hasNodeRoot, publishablePackages } from './workspace.js'

const packages = publishablePackages()
/** The peer range of core in every other package: the unreleased 0.0.0 and the 0.1 line. */
const CORE_PEER = 'workspace:0.0.0 || ^0.1.0'
/** The zod versions the code supports (the lowest, 4.0.0, is tested by two-copies.test.ts). */
const ZOD_PEER = '^4.0.0'

test('packages/* holds the publishable packages', () => {
  expect(packages.length).toBeGreaterThanOrEqual(7)
  expect(packages.map((p) => p.json.name)).toContain('@contextkit/core')
})

describe.each(packages.map((p) => [p.json.name, p] as const))('%s', (_, pkg) => {
  const { json } = pkg

  test('ESM only, side-effect free, Node ≥ 20.19, ships dist/', () => {
    expect(json.type).toBe('module')
    expect(json.sideEffects).toBe(false)
    expect(json.engines?.node).toBe('>=20.19')
    expect(json.files).toEqual(['dist', 'CHANGELOG.md'])
  })

  test('release metadata: public with provenance, homepage, bugs, a CHANGELOG.md to ship', () => {
    expect(json.publishConfig).toEqual({ access: 'public', provenance: true })
    expect(json.homepage).toBe(
      `https://github.com/contextkit/contextkit/tree/main/packages/${pkg.folder}#readme`,
    )
    expect(json.bugs).toEqual({ url: 'https://github.com/contextkit/contextkit/issues' })
    expect(json.repository?.directory).toBe(`packages/${pkg.folder}`)
    expect(readFileSync(join(pkg.dir, 'CHANGELOG.md'), 'utf8')).toMatch(
      new RegExp(`^# ${json.name.replace('/', '\\/')}\n`),
    )
  })

  test('every entry: a node branch into the Node build, a default one into the per-module files', () => {
    expect(json.exports?.['./package.json']).toBe('./package.json')
    expect(pkg.entries.map((e) => e.subpath)).toContain('.')
    const hasNode = pkg.entries.some((e) => e.subpath === './node')
    const nodeRoot = hasNodeRoot(pkg)
    /** The flat `{ types, import, require, default }` of `<folder><stem>`, its source present. */
    const expectFlat = (target: unknown, folder: string, stem: string, label: string) => {
      expect(Object.keys(target as object), label).toEqual([
        'types',
        'import',
        'require',
        'default',
      ])
      expect(target, label).toEqual({
        types: `./dist/${stem}.d.ts`,
        import: `./dist/${folder}${stem}.js`,
        require: `./dist/${folder}${stem}.js`,
        default: `./dist/${folder}${stem}.js`,
      })
      expect(existsSync(join(pkg.dir, 'src', `${stem}.ts`)), `src/${stem}.ts`).toBe(true)
    }
    for (const entry of pkg.entries) {
      const target = json.exports?.[entry.subpath] as Record<string, unknown>
      // Node (and bundlers targeting Node) take `node`: the bundled build, so every subpath of
      // the package resolves into one set of files; everything else takes `default`. No
      // top-level `types`: each branch has its own.
      expect(Object.keys(target), entry.subpath).toEqual(['node', 'default'])
      const branch = target.default as Record<string, unknown>
      const name = entry.subpath.slice(2)
      const stems = entry.subpath === '.' ? ['index'] : [name, `${name}/index`]
      const stem = /^\.\/dist\/(.+)\.js$/.exec(String(branch.default ?? ''))?.[1] ?? ''
      expect(stems, `${entry.subpath} → ${String(branch.default)}`).toContain(stem)
      expectFlat(target.default, '', stem, `${entry.subpath} → default`)
      // With src/index.node.ts, Node's root is the pure API plus the Node-only one; without it
      // (core), the root is the same in every runtime.
      const nodeStem = entry.subpath === '.' && nodeRoot ? 'index.node' : stem
      expectFlat(target.node, `${NODE_BUILD_DIR}/`, nodeStem, `${entry.subpath} → node`)
    }
    // a Node root joins the pure root and ./node: only a package with ./node has one
    if (!hasNode) expect(nodeRoot, 'src/index.node.ts without ./node').toBe(false)
    expect(json.main).toBe('./dist/index.js')
    expect(json.types).toBe('./dist/index.d.ts')
  })

  test('contextkit.nodeOnly names the Node-only entries (only ./node, or . for a Node-only package)', () => {
    const nodeOnly = json.contextkit?.nodeOnly
    expect(Array.isArray(nodeOnly)).toBe(true)
    const subpaths = pkg.entries.map((e) => e.subpath)
    for (const subpath of nodeOnly ?? []) expect(subpaths).toContain(subpath)
    if (subpaths.includes('./node')) expect(nodeOnly).toContain('./node')
  })

  test('entry files list their exports by name (no export *, but in src/index.node.ts)', () => {
    for (const source of entrySources(pkg.dir)) {
      const text = readFileSync(join(pkg.dir, source), 'utf8')
      if (source !== 'src/index.node.ts') {
        expect(text, source).not.toMatch(/^export \*/m)
        continue
      }
      // The Node root is exactly the two sibling entries it joins, and nothing else.
      const statements = text
        .split('\n')
        .filter((line) => line.trim() !== '' && !line.trimStart().startsWith('//'))
      expect(statements, source).toEqual([
        "export * from './index.js'",
        "export * from './node.js'",
      ])
    }
  })

  test.runIf(hasNodeRoot(pkg)).each(['', `${NODE_BUILD_DIR}/`])(
    'with ./node, the Node root exports exactly the pure root and ./node together (dist/%s)',
    async (folder) => {
      const load = (file: string) =>
        import(pathToFileURL(join(pkg.dir, 'dist', folder, file)).href) as Promise<
          Record<string, unknown>
        >
      const [nodeRoot, pure, node] = await Promise.all(
        ['index.node.js', 'index.js', 'node.js'].map(load),
      )
      // A name exported by both with different bindings would silently drop out of `export *`.
      const both = new Set([...Object.keys(pure!), ...Object.keys(node!)])
      expect(Object.keys(nodeRoot!).sort()).toEqual([...both].sort())
      for (const name of both) expect(nodeRoot![name], name).toBe(pure![name] ?? node![name])
    },
    // three cold imports of a whole build: seconds on a loaded 2-core machine
    60_000,
  )

  test('dependencies: @contextkit ones as workspace:^, others caret ranges; dev ones exact', () => {
    for (const [dep, range] of Object.entries(json.dependencies ?? {})) {
      expect(dep, 'core and zod are peers (one copy per app)').not.toMatch(
        /^(@contextkit\/core|zod)$/,
      )
      if (dep.startsWith('@contextkit/')) expect(range, dep).toBe('workspace:^')
      else expect(range, dep).toMatch(/^\^\d+\.\d+\.\d+$/)
    }
    for (const [dep, range] of Object.entries(json.devDependencies ?? {})) {
      if (dep.startsWith('@contextkit/')) expect(range, dep).toMatch(/^workspace:[\^*]$/)
      else expect(range, dep).toMatch(/^\d+\.\d+\.\d+$/)
    }
  })

  test('core and zod are peer dependencies (plus dev dependencies), so an app has one copy of each', () => {
    if (json.name === '@contextkit/core' || json.name === '@contextkit/testkit') {
      if (json.name === '@contextkit/core') expect(json.peerDependencies?.zod).toBe(ZOD_PEER)
      return
    }
    // Within range on core's first minor: changesets then leaves dependents at their own bump
    // (onlyUpdatePeerDependentsWhenOutOfRange) instead of forcing a major (docs/architecture.md).
    expect(json.peerDependencies?.['@contextkit/core']).toBe(CORE_PEER)
    expect(json.devDependencies?.['@contextkit/core']).toBe('workspace:^')
    expect(json.peerDependencies?.zod).toBe(ZOD_PEER)
    expect(json.devDependencies?.zod).toMatch(/^4\.\d+\.\d+$/)
  })

  test('its declarations import only its dependencies, peer dependencies and Node built-ins', () => {
    const allowed = new Set([
      json.name,
      ...Object.keys(json.dependencies ?? {}),
      ...Object.keys(json.peerDependencies ?? {}),
    ])
    const declarations = readdirSync(join(pkg.dir, 'dist'), {
      recursive: true,
      encoding: 'utf8',
    }).filter((f) => f.endsWith('.d.ts'))
    expect(declarations.length).toBeGreaterThan(0)
    for (const file of declarations) {
      const text = readFileSync(join(pkg.dir, 'dist', file), 'utf8')
      const specifiers = [
        ...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*)['"]([^'"]+)['"]/g),
        ...text.matchAll(/\/\/\/\s*<reference\s+types="([^"]+)"/g),
      ].map((m) => m[1]!)
      for (const specifier of specifiers) {
        if (specifier.startsWith('.') || isNodeBuiltin(specifier)) continue
        expect(allowed, `dist/${file} imports ${specifier}`).toContain(packageOf(specifier))
      }
    }
  })

  test('the build is tsup (per-module files and the Node build), then build-types.mjs: every type error, the declarations of the entries', () => {
    expect(readFileSync(join(pkg.dir, 'tsup.config.ts'), 'utf8')).toContain(
      'defineConfig(packageBuild())',
    )
    const build = JSON.parse(readFileSync(join(pkg.dir, 'tsconfig.build.json'), 'utf8')) as {
      include?: string[]
      files?: string[]
    }
    expect(build.include).toEqual([])
    expect(build.files).toEqual(entrySources(pkg.dir))
    // the inspector's build also checks its page's own program (ui/tsconfig.json, DOM types)
    expect(json.scripts?.build?.replace(' && tsc --noEmit -p ui/tsconfig.json', '')).toBe(
      'tsup && node ../../scripts/build-types.mjs',
    )
    // the build is the typecheck (tests included): a separate one would check the sources again
    expect(json.scripts?.typecheck).toBeUndefined()
  })
})
