/**
 * A package registry on 127.0.0.1 for the `@contextkit` scope only, serving packed tarballs the
 * way npmjs.org serves published ones (a packument per name, the tarball at its `dist.tarball`
 * URL). A consumer project points the scope at it with `.npmrc`
 * (`@contextkit:registry=http://127.0.0.1:<port>/`); every other package still comes from the
 * real registry. So `pnpm add @contextkit/formatters` and `npm i @contextkit/formatters` resolve
 * peers and versions exactly as they will after a release.
 */
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { readdir } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { basename, join } from 'node:path'

/** One version of one package, as the registry lists it. */
interface Served {
  json: Record<string, unknown> & { name: string; version: string }
  file: string
  bytes: Buffer
}

export interface LocalRegistry {
  /** `http://127.0.0.1:<port>/` */
  url: string
  /** The `.npmrc` lines that send the `@contextkit` scope here. */
  npmrc: string
  close(): Promise<void>
}

/** The `package.json` inside a packed tarball (what the registry publishes, ranges rewritten). */
export function tarballManifest(file: string): Served['json'] {
  const text = execFileSync('tar', ['-xzOf', file, 'package/package.json'], { encoding: 'utf8' })
  return JSON.parse(text) as Served['json']
}

/** A packument (the registry's document of a package name) of the versions served. */
function packument(name: string, versions: Served[], base: string): string {
  const sorted = [...versions].sort((x, y) =>
    x.json.version.localeCompare(y.json.version, 'en', { numeric: true }),
  )
  const doc = {
    name,
    'dist-tags': { latest: sorted.at(-1)!.json.version },
    versions: Object.fromEntries(
      sorted.map((v) => [
        v.json.version,
        {
          ...v.json,
          _id: `${name}@${v.json.version}`,
          dist: {
            tarball: `${base}-/${basename(v.file)}`,
            shasum: createHash('sha1').update(v.bytes).digest('hex'),
            integrity: `sha512-${createHash('sha512').update(v.bytes).digest('base64')}`,
          },
        },
      ]),
    ),
  }
  return JSON.stringify(doc)
}

/**
 * Serve `tarballs` (packed `@contextkit` packages; several versions of one name are listed
 * together, the highest as `latest`) on a free port of 127.0.0.1. Names not served answer 404.
 */
export async function startLocalRegistry(tarballs: readonly string[]): Promise<LocalRegistry> {
  const byName = new Map<string, Served[]>()
  const byFile = new Map<string, Buffer>()
  for (const file of tarballs) {
    const served: Served = { json: tarballManifest(file), file, bytes: readFileSync(file) }
    byName.set(served.json.name, [...(byName.get(served.json.name) ?? []), served])
    byFile.set(basename(file), served.bytes)
  }
  let base = ''
  const server: Server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', base).pathname.slice(1))
    const headers = { 'cache-control': 'no-store' }
    const tarball = path.startsWith('-/') ? byFile.get(path.slice(2)) : undefined
    if (tarball) {
      res.writeHead(200, { ...headers, 'content-type': 'application/octet-stream' })
      res.end(tarball)
      return
    }
    const versions = byName.get(path)
    if (!versions) {
      res.writeHead(404, { ...headers, 'content-type': 'application/json' })
      res.end('{"error":"not found"}')
      return
    }
    res.writeHead(200, { ...headers, 'content-type': 'application/json' })
    res.end(packument(path, versions, base))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`
  return {
    url: base,
    npmrc: `@contextkit:registry=${base}\n`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections()
        server.close((error) => (error ? reject(error) : resolve()))
      }),
  }
}

/** Serve every tarball of the folder `packs` (this run's packed packages, see `packs.ts`). */
export async function servePacks(packs: string): Promise<LocalRegistry> {
  return startLocalRegistry((await readdir(packs)).map((file) => join(packs, file)))
}
