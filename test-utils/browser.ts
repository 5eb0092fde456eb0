/**
 * A real browser for page tests: Debian's Chromium (`/usr/bin/chromium`, the `chromium` package)
 * driven by playwright-core, headless, with a fresh profile and without the background traffic
 * Chromium makes on its own. Every request the page makes is recorded; any request that is not
 * to 127.0.0.1 is aborted, so a test can assert that nothing left the machine.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type BrowserContext, chromium, type Page } from 'playwright-core'

/** Where Debian's package puts Chromium. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

/** The flags the page tests start Chromium with (no sandbox: CI runs as root). */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

/** A started browser with a fresh profile, and what its pages asked for. */
export interface TestBrowser {
  context: BrowserContext
  /** Every URL a page requested (allowed or not). */
  requests: string[]
  /** URLs that were not on 127.0.0.1, aborted. */
  blocked: string[]
  newPage(): Promise<Page>
  close(): Promise<void>
}

/** Start Chromium (one per test file: starting it costs about a second). */
export async function startBrowser(): Promise<TestBrowser> {
  const profile = await mkdtemp(join(tmpdir(), 'ck-chromium-'))
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1280, height: 900 },
  })
  const requests: string[] = []
  const blocked: string[] = []
  await context.route('**/*', (route) => {
    const url = route.request().url()
    requests.push(url)
    const host = URL.canParse(url) ? new URL(url).hostname : ''
    if (host === '127.0.0.1') return route.continue()
    blocked.push(url)
    return route.abort()
  })
  return {
    context,
    requests,
    blocked,
    newPage: () => context.newPage(),
    async close() {
      await context.close().catch(() => {})
      await rm(profile, { recursive: true, force: true })
    },
  }
}

/** Where page tests save their screenshots (ignored by git): `<package>/.screenshots/`. */
export async function screenshotPath(packageDir: URL, name: string): Promise<string> {
  const dir = join(new URL('.', packageDir).pathname, '.screenshots')
  await mkdir(dir, { recursive: true })
  return join(dir, name)
}
