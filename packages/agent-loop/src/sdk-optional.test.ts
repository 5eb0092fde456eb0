import { execFile } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { promisify } from 'node:util'
import { expect, test } from 'vitest'

const run = promisify(execFile)
const dist = fileURLToPath(new URL('../dist/', import.meta.url))

// Needs the built package (`pnpm build` runs before the tests in `pnpm test`).
test.skipIf(!existsSync(join(dist, 'index.js')))(
  'importing the package (any entry) never loads @anthropic-ai/sdk, the AI SDK, the MCP SDK nor the OpenTelemetry API',
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sdk-optional-'))
    try {
      // a resolve hook that refuses the SDK: any attempt to load it fails the import
      await writeFile(
        join(dir, 'hooks.mjs'),
        `export async function resolve(specifier, context, next) {
  const sdk = ['@anthropic-ai/sdk', '@ai-sdk/', 'ai', '@modelcontextprotocol/', '@opentelemetry/']
  if (sdk.some((p) => specifier === p || specifier.startsWith(p.endsWith('/') ? p : p + '/'))) {
    throw new Error('the SDK was loaded: ' + specifier)
  }
  return next(specifier, context)
}\n`,
      )
      // the built files of the entries, as the exports map names them
      // (the root's `node` branch, as Node picks it: the pure API plus ./node)
      type Target = string | { node?: Target; default: Target }
      const pkg = JSON.parse(readFileSync(join(dist, '..', 'package.json'), 'utf8')) as {
        exports: Record<string, Target>
      }
      const file = (t: Target): string => (typeof t === 'string' ? t : file(t.node ?? t.default))
      const entries = [
        '.',
        './testing',
        './anthropic',
        './completions',
        './openai',
        './ai-sdk',
        './mcp',
        './otel',
      ].map((subpath) => pathToFileURL(join(dist, '..', file(pkg.exports[subpath]!))).href)
      const script = `import { register } from 'node:module'
register(${JSON.stringify(pathToFileURL(join(dir, 'hooks.mjs')).href)})
const main = await import(${JSON.stringify(entries[0])})
const testing = await import(${JSON.stringify(entries[1])})
const anthropic = await import(${JSON.stringify(entries[2])})
const completions = await import(${JSON.stringify(entries[3])})
const openai = await import(${JSON.stringify(entries[4])})
const aiSdk = await import(${JSON.stringify(entries[5])})
const mcp = await import(${JSON.stringify(entries[6])})
const otel = await import(${JSON.stringify(entries[7])})
const control = await import('@anthropic-ai/sdk').then(() => 'loaded', (e) => e.message)
const control2 = await import('@ai-sdk/provider').then(() => 'loaded', (e) => e.message)
const control3 = await import('@modelcontextprotocol/sdk/types.js').then(() => 'loaded', (e) => e.message)
const control4 = await import('@opentelemetry/api').then(() => 'loaded', (e) => e.message)
console.log(typeof main.runAgent, typeof testing.scriptedProvider, typeof anthropic.anthropicProvider, typeof anthropic.anthropicTokenCounter, typeof anthropic.refreshModels, typeof completions.openAICompatibleCompletionsProvider, typeof openai.openAIChatProvider, typeof aiSdk.aiSdkProvider, typeof mcp.mcpTools, typeof otel.otelTrace)
console.log(control)
console.log(control2)
console.log(control3)
console.log(control4)`
      const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
        cwd: dir,
      })
      // the hook works: a direct import of the SDK is refused by it
      expect(stdout.trim().split('\n')).toEqual([
        'function function function function function function function function function function',
        'the SDK was loaded: @anthropic-ai/sdk',
        'the SDK was loaded: @ai-sdk/provider',
        'the SDK was loaded: @modelcontextprotocol/sdk/types.js',
        'the SDK was loaded: @opentelemetry/api',
      ])
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  },
)
