// The publishable packages of the workspace: every folder under packages/ whose package.json is
// not `private`, in folder order. Shared by the package checks and the release dry run.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('..', import.meta.url))

/** Each publishable package: its folder name under packages/ and its parsed package.json. */
export function publishablePackages() {
  const out = []
  for (const folder of readdirSync(join(ROOT, 'packages')).sort()) {
    let json
    try {
      json = JSON.parse(readFileSync(join(ROOT, 'packages', folder, 'package.json'), 'utf8'))
    } catch {
      continue
    }
    if (!json.private) out.push({ folder, json })
  }
  return out
}
