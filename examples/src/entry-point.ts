import { realpathSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

/**
 * Whether the module at `moduleUrl` (its `import.meta.url`) is the program Node was started with
 * (`node file.ts`, `tsx file.ts`), through symlinks: the examples' files run their command line
 * only then, and stay importable by tests.
 */
export function isEntryPoint(moduleUrl: string): boolean {
  const entry = process.argv[1]
  if (!entry) return false
  try {
    return realpathSync(entry) === realpathSync(fileURLToPath(moduleUrl))
  } catch {
    return false
  }
}
