// Ajv (with ajv-formats) is about 90 modules: loading it with the package root cost about a
// quarter of a cold `import('@contextkit/agent-loop')` (scripts/cold-import.mjs). It is loaded on
// the first `jsonSchemaTool` call instead: synchronously where the runtime has a `require`
// (Node, through `process.getBuiltinModule`, so this module imports nothing from Node and the
// root stays a pure entry), by dynamic `import()` elsewhere.
import type { Ajv } from 'ajv'
import type { Ajv2020 } from 'ajv/dist/2020.js'
import type formatsModule from 'ajv-formats'

/** The Ajv classes and the ajv-formats plugin. */
export interface AjvModules {
  Ajv: typeof Ajv
  Ajv2020: typeof Ajv2020
  addFormats: typeof formatsModule.default
}

interface NodeModuleBuiltin {
  createRequire(url: string): (id: string) => unknown
}
interface ProcessWithBuiltins {
  getBuiltinModule?(id: string): unknown
}

let loaded: AjvModules | undefined
let loading: Promise<AjvModules> | undefined

// ajv-formats is CommonJS: `require` and Node's default import hand over its `module.exports`,
// TypeScript types it as the module object; the plugin is `.default` of either.
function fromModules(ajv: unknown, ajv2020: unknown, formats: unknown): AjvModules {
  const plugin = (formats as { default?: unknown }).default ?? formats
  return {
    Ajv: (ajv as { Ajv: typeof Ajv }).Ajv,
    Ajv2020: (ajv2020 as { Ajv2020: typeof Ajv2020 }).Ajv2020,
    addFormats: plugin as AjvModules['addFormats'],
  }
}

/**
 * Ajv, loaded now if this runtime can load it synchronously (Node), else `undefined` (then
 * {@link loadAjv}). Loaded once per process.
 */
export function ajvNow(): AjvModules | undefined {
  if (loaded) return loaded
  const proc = (globalThis as { process?: ProcessWithBuiltins }).process
  const builtin = proc?.getBuiltinModule?.('node:module') as NodeModuleBuiltin | undefined
  if (builtin === undefined || typeof import.meta.url !== 'string') return undefined
  const require = builtin.createRequire(import.meta.url)
  loaded = fromModules(require('ajv'), require('ajv/dist/2020.js'), require('ajv-formats'))
  return loaded
}

/** Ajv, loaded by dynamic `import()` where it cannot be loaded synchronously. */
export function loadAjv(): Promise<AjvModules> {
  const now = ajvNow()
  if (now) return Promise.resolve(now)
  loading ??= Promise.all([import('ajv'), import('ajv/dist/2020.js'), import('ajv-formats')]).then(
    ([ajv, ajv2020, formats]) => {
      loaded = fromModules(ajv, ajv2020, formats)
      return loaded
    },
  )
  return loading
}
