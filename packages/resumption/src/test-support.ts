// Test helpers shared by the tests that run real writer processes against the built package.
import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

export const pkgDir = fileURLToPath(new URL('..', import.meta.url))

/**
 * Build the package when `dist/` is missing or older than a source file (the full build, so the
 * declarations other packages typecheck against are kept), and return the URL of its `dist/`
 * folder: child processes import `index.js` and `node.js` from there.
 */
export function ensureDist(): string {
  const srcDir = join(pkgDir, 'src')
  const distDir = join(pkgDir, 'dist')
  const newestSource = Math.max(
    ...readdirSync(srcDir)
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
      .map((f) => statSync(join(srcDir, f)).mtimeMs),
  )
  const built = ['index.js', 'node.js', 'state-file.js'].map((f) => join(distDir, f))
  if (!built.every((f) => existsSync(f) && statSync(f).mtimeMs >= newestSource)) {
    const bin = join(pkgDir, '..', '..', 'node_modules')
    execFileSync(process.execPath, [join(bin, 'tsup', 'dist', 'cli-default.js')], {
      cwd: pkgDir,
      stdio: 'ignore',
    })
    execFileSync(
      process.execPath,
      [join(bin, 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'],
      { cwd: pkgDir, stdio: 'ignore' },
    )
  }
  return pathToFileURL(`${distDir}/`).href
}
