/**
 * Runs the example of a package README, or of a guide under docs/guides/, so the docs cannot rot.
 *
 * The example is the first ```ts block after a `<!-- runnable-example -->` line (or another
 * marker), in the package's README.md or in the Markdown file given as `{ file }`. Imports of the
 * package itself and of its subpaths (`@contextkit/core/node`) are pointed at its source (the
 * `dist/bundle/<name>.js` of each `exports` entry's `node` branch, or `dist/<name>.js`, becomes
 * `src/<name>.ts`); every `console.log(...) // => text` line declares
 * the output expected from that call, in order. Use it from a test:
 *
 *   const { logs, expected } = await runReadmeExample(new URL('..', import.meta.url))
 *   expect(logs).toEqual(expected)
 *
 * An example in a guide is run the same way, for the package whose source its imports point at:
 *
 *   const file = docsFile('guides/compaction.md')
 *   await runReadmeExample(pkg, '<!-- runnable-example:compaction -->', { file })
 */
import { randomUUID } from 'node:crypto'
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { isAbsolute, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { format } from 'node:util'

const MARKER = '<!-- runnable-example -->'

export interface ReadmeExampleRun {
  /** What the example printed, one entry per console.log call. */
  logs: string[]
  /** The `// =>` annotations, in order. */
  expected: string[]
  /** The extracted source. */
  code: string
}

/** The example of a package README: its code and the `// =>` annotations, in order. */
export interface ReadmeExample {
  code: string
  expected: string[]
}

/** Where {@link readReadmeExample} and {@link runReadmeExample} find the example. */
export interface ReadmeExampleOptions {
  /**
   * The Markdown file that holds the example: a file URL, or a path (absolute, or relative to
   * the package directory). Default: the package's `README.md`. Imports of the package are
   * pointed at its source wherever the file is.
   */
  file?: URL | string
}

/** The repository's root directory (this file is in `test-utils/`). */
const REPO = fileURLToPath(new URL('..', import.meta.url))

/**
 * The absolute path of a file under the repository's `docs/` folder, for `{ file }`:
 * `docsFile('guides/compaction.md')`.
 */
export function docsFile(path: string): string {
  return join(REPO, 'docs', path)
}

/** The Markdown file `options.file` names for the package in `dir` (its README by default). */
function markdownFile(dir: string, options: ReadmeExampleOptions): string {
  const { file } = options
  if (file === undefined) return join(dir, 'README.md')
  const path = typeof file === 'string' ? file : fileURLToPath(file)
  return isAbsolute(path) ? path : join(dir, path)
}

/**
 * Read the runnable example (see the top of this file) of the package in `packageDir`.
 *
 * @param marker - the HTML comment that precedes the example; default `<!-- runnable-example -->`
 *   (a README or guide can hold more examples under other markers, each run by its own test).
 * @param options - `file`: read the example from that Markdown file (a guide) instead of the
 *   package's README.
 */
export async function readReadmeExample(
  packageDir: URL | string,
  marker: string = MARKER,
  options: ReadmeExampleOptions = {},
): Promise<ReadmeExample> {
  const dir = typeof packageDir === 'string' ? packageDir : fileURLToPath(packageDir)
  const path = markdownFile(dir, options)
  const name = relative(REPO, path)
  const readme = await readFile(path, 'utf8')
  const at = readme.indexOf(marker)
  if (at < 0) throw new Error(`${name} has no ${marker} marker`)
  const block = /```ts\n([\s\S]*?)\n```/.exec(readme.slice(at))
  if (!block?.[1]) throw new Error(`${name} has no \`\`\`ts block after ${marker}`)
  const code = block[1]
  const expected: string[] = []
  for (const line of code.split('\n')) {
    const m = /console\.log\(.*\/\/ => (.*)$/.exec(line)
    if (m) expected.push(m[1]!.trim())
  }
  return { code, expected }
}

/** An `exports` target: a path, or conditions (possibly nested) mapping to targets. */
type ExportTarget = string | { [condition: string]: ExportTarget | undefined }

/**
 * The file Node runs for `target`: the `node` branch of a conditional root (the pure API plus
 * `./node`), else `default`.
 */
function nodeTarget(target: ExportTarget | undefined): string | undefined {
  if (target === undefined || typeof target === 'string') return target
  return nodeTarget(target.node ?? target.default)
}

/**
 * Run the example under `marker` (see {@link readReadmeExample}) and capture what it logs. The
 * example runs from the package's directory (its `.readme/` folder), so its other imports
 * resolve as the package's own do, whichever Markdown file (`options.file`) it comes from.
 */
export async function runReadmeExample(
  packageDir: URL | string,
  marker: string = MARKER,
  options: ReadmeExampleOptions = {},
): Promise<ReadmeExampleRun> {
  const dir = typeof packageDir === 'string' ? packageDir : fileURLToPath(packageDir)
  const { code, expected } = await readReadmeExample(dir, marker, options)
  const pkg = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as {
    name: string
    exports?: Record<string, ExportTarget>
  }
  let source = code
  for (const [subpath, target] of Object.entries(pkg.exports ?? { '.': './dist/index.js' })) {
    const file = nodeTarget(target)
    const stem = file && /^\.\/dist\/(?:bundle\/)?(.+)\.js$/.exec(file)?.[1]
    if (!stem) continue
    const specifier = subpath === '.' ? pkg.name : `${pkg.name}/${subpath.slice(2)}`
    source = source.replaceAll(`'${specifier}'`, JSON.stringify(join(dir, 'src', `${stem}.ts`)))
  }
  const tmpDir = join(dir, '.readme')
  await mkdir(tmpDir, { recursive: true })
  const file = join(tmpDir, `example-${randomUUID()}.ts`)
  await writeFile(file, source)
  const logs: string[] = []
  const original = console.log
  console.log = (...args: unknown[]) => {
    logs.push(format(...args))
  }
  try {
    await import(/* @vite-ignore */ file)
  } finally {
    console.log = original
    await rm(file, { force: true })
  }
  return { logs, expected, code }
}
