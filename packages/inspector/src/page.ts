import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { InspectorAssetsError } from './errors.js'

/** The page's built files (`dist/ui/`), by the name the page asks for. */
export const ASSET_TYPES: Readonly<Record<string, string>> = Object.freeze({
  'app.js': 'text/javascript; charset=utf-8',
  'app.css': 'text/css; charset=utf-8',
})

/** Where the built page is: beside this module in `dist/`, or `dist/ui` from the sources. */
function assetsDir(): string {
  for (const rel of ['./ui/', '../ui/', '../dist/ui/']) {
    const dir = fileURLToPath(new URL(rel, import.meta.url))
    if (existsSync(`${dir}app.js`)) return dir
  }
  throw new InspectorAssetsError(
    'The inspector page is not built (dist/ui/app.js is missing): run the package build',
  )
}

let cache: Map<string, Uint8Array> | undefined

/** The bytes of a built file of the page (read once), or `undefined` for another name. */
export async function asset(name: string): Promise<Uint8Array | undefined> {
  if (!(name in ASSET_TYPES)) return undefined
  cache ??= new Map()
  let bytes = cache.get(name)
  if (!bytes) {
    bytes = await readFile(`${assetsDir()}${name}`)
    cache.set(name, bytes)
  }
  return bytes
}

/**
 * The page itself: no inline script or style (the Content-Security-Policy forbids both); the
 * script reads the token (sent on API calls) and whether runs can be resumed from meta tags. `token` is checked to hold
 * only `[A-Za-z0-9_-]`, so it needs no escaping.
 */
export function pageHtml(token: string, resume: boolean): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="inspector-token" content="${token}">
<meta name="inspector-resume" content="${resume ? 'yes' : 'no'}">
<title>contextkit inspector</title>
<link rel="stylesheet" href="app.css">
</head>
<body>
<div id="app"><p>Loading the inspector…</p></div>
<script type="module" src="app.js"></script>
</body>
</html>
`
}
