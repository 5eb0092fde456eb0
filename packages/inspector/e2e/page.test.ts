// The page in a real browser (Debian's Chromium through playwright-core): hostile session text
// shows as text and runs nothing, requests without the token get 401, nothing leaves 127.0.0.1.
import type { SessionEntry } from '@contextkit/core'
import { sessionHeader } from '@contextkit/core/store'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { screenshotPath, startBrowser, type TestBrowser } from '../../../test-utils/browser.js'
import { CONTENT_SECURITY_POLICY } from '../src/security.js'
import { type Inspector, startInspector } from '../src/start-inspector.js'
import { onCleanup, workspace } from '../src/test-support.js'

const HOSTILE = [
  '<img src=x onerror="window.__pwned = 1">',
  '</script><script>window.__pwned = 1</script>',
  '<style>body { display: none }</style>',
  '"><svg onload="window.__pwned = 1">',
].join('\n')

let browser: TestBrowser

beforeAll(async () => {
  browser = await startBrowser()
}, 60_000)

afterAll(async () => {
  await browser?.close()
})

/** A session whose every text field is hostile markup: id, reply, tool input, tool result. */
function hostileSession(id: string): SessionEntry[] {
  const ts = new Date().toISOString()
  return [
    sessionHeader(id),
    {
      type: 'message',
      id: 'm1',
      parentId: null,
      ts,
      message: { role: 'user', content: [{ type: 'text', text: HOSTILE }] },
    },
    {
      type: 'message',
      id: 'm2',
      parentId: 'm1',
      ts,
      message: {
        role: 'assistant',
        content: [
          { type: 'text', text: HOSTILE },
          { type: 'tool_call', id: 'call_1', name: 'fetch_page', input: { html: HOSTILE } },
        ],
      },
    },
    {
      type: 'message',
      id: 'm3',
      parentId: 'm2',
      ts,
      message: {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            toolCallId: 'call_1',
            content: [{ type: 'text', text: HOSTILE }],
            isError: false,
          },
        ],
      },
    },
  ]
}

async function served(): Promise<Inspector> {
  const ws = await workspace()
  await ws.sessions.append('hostile-1', hostileSession('hostile-1'))
  const inspector = await startInspector({ sessions: ws.sessions, traces: ws.traces })
  onCleanup(() => inspector.close())
  return inspector
}

test('a hostile session renders as text: the markup shows as characters, no script runs', async () => {
  const inspector = await served()
  const page = await browser.newPage()
  const response = await page.goto(inspector.url)
  expect(response?.headers()['content-security-policy']).toBe(CONTENT_SECURITY_POLICY)
  await page.getByRole('link', { name: 'hostile-1' }).click()
  await page.locator('article.step').first().waitFor()
  const text = await page.locator('article.step').first().textContent()
  expect(text).toContain('<img src=x onerror="window.__pwned = 1">')
  expect(text).toContain('</script><script>window.__pwned = 1</script>')
  expect(
    await page.locator('article.step img, article.step script, article.step style').count(),
  ).toBe(0)
  expect(await page.evaluate(() => (globalThis as { __pwned?: unknown }).__pwned)).toBeUndefined()
  expect(await page.locator('body').isVisible()).toBe(true)
  const shot = await screenshotPath(new URL('..', import.meta.url), 'hostile-session.png')
  await page.screenshot({ path: shot, fullPage: true })
  console.log(`inspector screenshot: ${shot}`)
  await page.close()
}, 30_000)

test('without the token: 401 and nothing else, for the page, its script and the API', async () => {
  const inspector = await served()
  const page = await browser.newPage()
  const origin = `http://127.0.0.1:${inspector.port}`
  for (const path of ['/', '/app.js', '/api/sessions']) {
    const response = await page.goto(`${origin}${path}`)
    expect(response?.status(), path).toBe(401)
    expect((await page.locator('body').textContent())?.trim()).toBe('unauthorized')
  }
  const wrong = await page.goto(`${origin}/?token=not-the-token-at-all`)
  expect(wrong?.status()).toBe(401)
  await page.close()
}, 30_000)

test('nothing the page asked for left 127.0.0.1', () => {
  expect(browser.requests.length).toBeGreaterThan(0)
  expect(browser.blocked).toEqual([])
  expect(browser.requests.every((u) => new URL(u).hostname === '127.0.0.1')).toBe(true)
})
