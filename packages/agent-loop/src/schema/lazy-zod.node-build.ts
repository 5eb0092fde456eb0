// The Node build's lazy-zod.ts: zod is loaded by the first call, not by `import()` of the package
// (zod's module load is about 60 ms, most of a cold start; issue 46). Loaded synchronously with
// Node's `require` of zod's ES module entry (require(esm), Node ≥ 20.19, our `engines`), which
// shares the ES module instance the application imported: the same classes, the same registry.
// `process.getBuiltinModule` keeps this module free of `node:` imports, as ajv-loader.ts does.
import { ConfigurationError } from '@contextkit/core'
import type * as z from 'zod'
import type { LazyZod } from './lazy-zod.js'

interface NodeBuiltins {
  createRequire(url: string): (id: string) => unknown
  fileURLToPath(url: string): string
}

let loaded: typeof z | undefined

/** Node's `createRequire` and `fileURLToPath`, where the runtime has them. */
function builtins(): NodeBuiltins | undefined {
  const proc = (globalThis as { process?: { getBuiltinModule?(id: string): unknown } }).process
  const module = proc?.getBuiltinModule?.('node:module') as NodeBuiltins | undefined
  const url = proc?.getBuiltinModule?.('node:url') as NodeBuiltins | undefined
  if (!module || !url) return undefined
  return { createRequire: module.createRequire, fileURLToPath: url.fileURLToPath }
}

/** zod, as the application has it, loaded by the first call (one instance: the app's). */
export function zodNow(): LazyZod {
  if (loaded) return loaded
  const node = builtins()
  if (!node || typeof import.meta.resolve !== 'function') {
    throw new ConfigurationError(
      'zod could not be loaded: this runtime has no process.getBuiltinModule or import.meta.resolve (use the package through its default export condition here)',
    )
  }
  const require = node.createRequire(import.meta.url)
  loaded = require(node.fileURLToPath(import.meta.resolve('zod'))) as typeof z
  return loaded
}
