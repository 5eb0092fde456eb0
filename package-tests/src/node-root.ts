/**
 * The root of a package with a Node root (`src/index.node.ts`), as Node users import it: its `node` export
 * condition serves the pure API plus the Node-only one, so `import { prefill } from
 * '@contextkit/prefill'` (the way these names were imported before `./node` existed) keeps
 * working, from ESM and from CommonJS, with the right types under `moduleResolution: nodenext`;
 * bundler resolution (no `node` condition) keeps the pure types.
 */
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Consumer, RunResult } from './consumer.js'
import { run } from './consumer.js'
import { typecheckFile } from './typecheck.js'

/**
 * The names users import from each such root: Node-only ones (from `./node`) next to a pure one,
 * so one import line proves both halves are there.
 */
export const NODE_ROOT_IMPORTS: Readonly<Record<string, { node: string[]; pure: string[] }>> = {
  '@contextkit/context-metadata': {
    node: ['analyzeFile', 'contextMetadata'],
    pure: ['analyzeContext'],
  },
  '@contextkit/prefill': { node: ['prefill'], pure: ['applyPrefill'] },
  '@contextkit/preload': { node: ['preload'], pure: ['collectReferences'] },
  '@contextkit/resumption': {
    node: ['resumption', 'loadSelfState'],
    pure: ['buildResumptionMessage'],
  },
}

export interface NodeRootRun {
  /** `typeof` of each imported name, from `import { … } from '<pkg>'` in an ES module. */
  esm: Record<string, string>
  /** The same from `const { … } = require('<pkg>')` in a CommonJS file. */
  cjs: Record<string, string>
  /** Names of `require('<pkg>/node')` missing from `require('<pkg>')`. */
  missingFromRequire: string[]
  /** Names of `import('<pkg>/node')` missing from `import('<pkg>')`. */
  missingFromImport: string[]
}

function namesOf(name: string): string[] {
  const names = NODE_ROOT_IMPORTS[name]
  if (!names)
    throw new Error(`${name} has a Node root: list the names users import in NODE_ROOT_IMPORTS`)
  return [...names.node, ...names.pure]
}

/** Import the names from the root in ESM and CommonJS files of the consumer project. */
export async function importNodeRoot(consumer: Consumer): Promise<NodeRootRun> {
  const name = consumer.pkg.json.name
  const names = namesOf(name)
  const list = names.join(', ')
  const report = `{ ${names.map((n) => `${n}: typeof ${n}`).join(', ')} }`
  await writeFile(
    join(consumer.dir, 'node-root.mjs'),
    `import { ${list} } from '${name}'\n` +
      `const root = await import('${name}')\n` +
      `const node = await import('${name}/node')\n` +
      `const missing = Object.keys(node).filter((n) => !(n in root))\n` +
      `process.stdout.write(JSON.stringify({ names: ${report}, missing }))\n`,
  )
  await writeFile(
    join(consumer.dir, 'node-root.cjs'),
    `'use strict'\n` +
      `const { ${list} } = require('${name}')\n` +
      `const root = require('${name}')\n` +
      `const node = require('${name}/node')\n` +
      `const missing = Object.keys(node).filter((n) => !(n in root))\n` +
      `process.stdout.write(JSON.stringify({ names: ${report}, missing }))\n`,
  )
  const parse = (r: RunResult) =>
    JSON.parse(r.stdout) as { names: Record<string, string>; missing: string[] }
  const opts = { cwd: consumer.dir, timeoutMs: 60_000 }
  const esm = parse(await run(process.execPath, ['node-root.mjs'], opts))
  const cjs = parse(await run(process.execPath, ['node-root.cjs'], opts))
  return {
    esm: esm.names,
    cjs: cjs.names,
    missingFromImport: esm.missing,
    missingFromRequire: cjs.missing,
  }
}

/**
 * Typecheck `node-root.ts`, which imports the names from the root and checks each Node-only one
 * has the very type `./node` gives it. Resolves to the names tsc reports the root does not export
 * (none under nodenext; exactly the Node-only ones under bundler) and tsc's other output.
 */
export async function typecheckNodeRoot(
  consumer: Consumer,
  resolution: 'nodenext' | 'bundler',
): Promise<{ notExported: string[]; otherErrors: string[] }> {
  const name = consumer.pkg.json.name
  const { node } = NODE_ROOT_IMPORTS[name] ?? { node: [] }
  const code =
    `import { ${namesOf(name).join(', ')} } from '${name}'\n` +
    `import type * as NodeOnly from '${name}/node'\n` +
    node.map((n) => `export const ${n}Same: typeof NodeOnly.${n} = ${n}\n`).join('') +
    `console.log(${namesOf(name)
      .map((n) => `typeof ${n}`)
      .join(', ')})\n`
  await writeFile(join(consumer.dir, 'node-root.ts'), code)
  let output: string
  try {
    output = (await typecheckFile(consumer, resolution, 'node-root.ts')).stdout
  } catch (error) {
    output = (error as Error).message
  }
  const notExported: string[] = []
  const otherErrors: string[] = []
  for (const line of output.split('\n')) {
    if (!/error TS\d+/.test(line)) continue
    const m = /has no exported member (?:named )?'(\w+)'/.exec(line)
    if (m) notExported.push(m[1]!)
    else otherErrors.push(line)
  }
  return { notExported: notExported.sort(), otherErrors }
}
